//! Every finding and fix reads as a sentence a site owner can act on, in the singular
//! and in the plural: for every kind of finding, a site where each problem concerns one
//! page or URL and sites where it concerns two or many, and every text the analysis
//! writes checked for number agreement and for fragments that are not sentences.

use super::B;
use crate::*;
use std::collections::BTreeSet;

fn u(path: &str) -> String {
    format!("https://example.com{path}")
}

/// Kinds no analysis input can produce (dead kinds), each with a comment showing that
/// nothing in `checks/` emits it. Empty: every kind has a scenario below.
const NOT_PRODUCIBLE: &[FindingId] = &[];

/// How many instances of each problem a scenario builds by default: one, two and many.
const NS: &[u64] = &[1, 2, 12];

/// One site built to produce some kinds of finding, `n` times over (or with `n` of
/// whatever the kind counts: linking pages, URLs of a pattern, redirect hops, sitemaps
/// listing a URL, canonical declarations, alternates).
struct Scenario {
    name: &'static str,
    /// Kinds every run must produce.
    kinds: &'static [FindingId],
    /// The values of `n` to build with.
    counts: &'static [u64],
    build: fn(u64) -> B,
    /// The analysis settings (the audit default unless the scenario needs another).
    config: fn() -> AnalysisConfig,
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "pages JavaScript changes",
        kinds: &[
            FindingId::RenderCanonAdded,
            FindingId::RenderCanonChanged,
            FindingId::RenderNoindexAdded,
            FindingId::RenderNoindexRemoved,
            FindingId::RenderTitleChanged,
            FindingId::RenderJsLinks,
            FindingId::RenderContent,
            FindingId::RenderFailed,
        ],
        counts: NS,
        build: rendered_pages,
        config: without_dust,
    },
    Scenario {
        name: "duplicate URL variants",
        kinds: &[
            FindingId::DupHost,
            FindingId::DupScheme,
            FindingId::DupSlash,
            FindingId::DupIndex,
            FindingId::DupCase,
            FindingId::DupParam,
        ],
        counts: NS,
        build: variants,
        config: without_dust,
    },
    Scenario {
        name: "identical content",
        kinds: &[FindingId::DupContent],
        counts: NS,
        build: identical_content,
        config: without_dust,
    },
    Scenario {
        name: "near-identical content",
        kinds: &[FindingId::DupNear],
        counts: NS,
        build: near_identical,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "a learned rule",
        kinds: &[FindingId::DupDust],
        counts: NS,
        build: learned_rule,
        config: carried_rules,
    },
    Scenario {
        // One finding per policy rule; `n` is the pairs of pages it wrongly merges.
        name: "a rule that does not hold",
        kinds: &[FindingId::RuleDoesNotHold],
        counts: NS,
        build: rule_does_not_hold,
        config: aggressive,
    },
    Scenario {
        name: "signals that disagree",
        kinds: &[FindingId::ClusterConflict],
        counts: NS,
        build: cluster_conflict,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "canonical declarations",
        kinds: &[
            FindingId::CanonMultiple,
            FindingId::CanonConflict,
            FindingId::CanonInvalid,
            FindingId::CanonOutsideHead,
            FindingId::CanonRelative,
        ],
        counts: NS,
        build: canonical_declarations,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "canonical targets",
        kinds: &[
            FindingId::CanonToRedirect,
            FindingId::CanonToError,
            FindingId::CanonToNoindex,
            FindingId::CanonToBlocked,
            FindingId::CanonChain,
            FindingId::CanonLoop,
            FindingId::CanonCrossHost,
            FindingId::CanonCrossScheme,
            FindingId::CanonToUnrelated,
            FindingId::CanonLinked,
        ],
        counts: NS,
        build: canonical_targets,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "posts naming their own comment pages canonical",
        kinds: &[FindingId::CanonCommentPage],
        counts: NS,
        build: comment_pages,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "redirects",
        kinds: &[
            FindingId::RedirectChain,
            FindingId::RedirectLoop,
            FindingId::RedirectTemporary,
            FindingId::RedirectToError,
            FindingId::RedirectMetaRefresh,
            FindingId::RedirectHttpNotHttps,
            FindingId::LinkToRedirect,
        ],
        counts: NS,
        build: redirects,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "sitemap entries",
        kinds: &[
            FindingId::SitemapRedirect,
            FindingId::SitemapError,
            FindingId::SitemapNoindex,
            FindingId::SitemapBlocked,
            FindingId::SitemapCanonicalised,
            FindingId::SitemapNonPreferred,
            FindingId::SitemapMissing,
            FindingId::SitemapOrphan,
        ],
        counts: NS,
        build: sitemap_entries,
        config: AnalysisConfig::default,
    },
    Scenario {
        // One finding per sitemap file; `n` is the issues, or the redirects, it has.
        name: "sitemap files",
        kinds: &[
            FindingId::SitemapInvalid,
            FindingId::SitemapOverLimit,
            FindingId::SitemapLocationRedirect,
            FindingId::SitemapGuessUnreadable,
        ],
        counts: NS,
        build: sitemap_files,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "crawler traps and robots.txt",
        kinds: &[FindingId::Trap, FindingId::RobotsHidesDup],
        counts: NS,
        build: traps_and_robots,
        config: AnalysisConfig::default,
    },
    Scenario {
        // One robots.txt per origin, and nothing in its text counts: rendered once
        // (with both sizes it can report).
        name: "a robots.txt too large",
        kinds: &[FindingId::RobotsTooLarge],
        counts: &[1],
        build: robots_too_large,
        config: AnalysisConfig::default,
    },
    Scenario {
        // A small site: with 12 linking pages, the links are the template's.
        name: "links on a small site",
        kinds: &[
            FindingId::LinkBroken,
            FindingId::LinkToRedirect,
            FindingId::CanonLinked,
            FindingId::RobotsHidesDup,
        ],
        counts: NS,
        build: links,
        config: AnalysisConfig::default,
    },
    Scenario {
        // One page whose template slot links five broken URLs: a slot needs five.
        name: "a template slot on one page",
        kinds: &[FindingId::LinkBroken],
        counts: &[1],
        build: slot_on_one_page,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "hreflang",
        kinds: &[
            FindingId::HreflangToRedirect,
            FindingId::HreflangToError,
            FindingId::HreflangToNoindex,
            FindingId::HreflangNonPreferred,
            FindingId::HreflangNoReturn,
            FindingId::HreflangInvalidLang,
            FindingId::HreflangNoSelf,
            FindingId::HreflangConflict,
            FindingId::HreflangXDefault,
        ],
        counts: NS,
        build: hreflang,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "shared titles, headings and descriptions",
        kinds: &[
            FindingId::TitleDuplicate,
            FindingId::H1Duplicate,
            FindingId::MetaDescriptionDuplicate,
        ],
        counts: NS,
        build: shared_texts,
        config: AnalysisConfig::default,
    },
    Scenario {
        name: "URL-variant probes",
        kinds: &[FindingId::VariantDuplicate, FindingId::VariantTemporary],
        counts: NS,
        build: probed_variants,
        config: without_dust,
    },
];

/// Without DUST mining: pairs of URLs that differ the same way would otherwise teach a
/// rule, and be reported as its pattern.
/// `n` pages of each kind a script changes, rendered, and `n` that did not render.
fn rendered_pages(n: u64) -> B {
    let mut b = B::new();
    // The rendered text is the served one unless the edit says otherwise.
    let rendered = |b: &mut B, url: &str, edit: &dyn Fn(&mut RenderedPage)| {
        let text_hash = b.fetch(url).text_hash;
        let mut r = RenderedPage {
            url_id: b.id(url),
            word_count: Some(200),
            text_hash,
            ..RenderedPage::default()
        };
        edit(&mut r);
        b.input.renders.push(r);
    };
    for k in 0..n {
        let target = u(&format!("/boots/care-{k}"));
        b.page(&target, 1000 + k).canonical(&target, &target);
        let target_id = b.id(&target);
        rendered(&mut b, &target, &|r| {
            r.canonical = Some(target_id);
            r.canonical_href = Some(String::new());
        });
        let to_target = |r: &mut RenderedPage| {
            r.canonical = Some(target_id);
            r.canonical_href = Some(String::new());
        };
        let added = u(&format!("/added/care-{k}"));
        b.page(&added, 1000 + k);
        rendered(&mut b, &added, &to_target);
        let changed = u(&format!("/changed/care-{k}"));
        b.page(&changed, 1000 + k).canonical(&changed, &changed);
        rendered(&mut b, &changed, &to_target);
        let noindex_added = u(&format!("/hidden/p{k}"));
        b.page(&noindex_added, 3000 + k);
        rendered(&mut b, &noindex_added, &|r| r.noindex = true);
        let noindex_removed = u(&format!("/shown/p{k}"));
        b.page(&noindex_removed, 4000 + k);
        b.fetch(&noindex_removed).noindex = true;
        rendered(&mut b, &noindex_removed, &|_| {});
        let titled = u(&format!("/titled/p{k}"));
        b.page(&titled, 5000 + k).texts(
            &titled,
            &format!("Raw title {k}"),
            &format!("Raw heading {k}"),
            "",
        );
        rendered(&mut b, &titled, &|r| {
            r.title = Some(format!("Rendered title {k}"));
            r.h1 = Some(format!("Rendered heading {k}"));
        });
        let content = u(&format!("/app/p{k}"));
        b.page(&content, 6000 + k);
        b.fetch(&content).word_count = Some(4);
        rendered(&mut b, &content, &|r| r.word_count = Some(300));
        let only = u(&format!("/only/p{k}"));
        b.page(&only, 7000 + k);
        let js_links = JsLinkRow {
            from: b.id(&content),
            to: b.id(&only),
        };
        b.input.js_links.push(js_links);
        let busy = u(&format!("/busy/p{k}"));
        b.page(&busy, 8000 + k);
        rendered(&mut b, &busy, &|r| {
            r.outcome = RenderOutcome::Timeout;
            r.message = Some("the page's script did not yield within 10000 ms".into());
        });
    }
    b
}

fn without_dust() -> AnalysisConfig {
    let mut c = AnalysisConfig::default();
    c.dust.enabled = false;
    c
}

/// The rules an earlier audit of the story site learned: carried into this one, they
/// hold on a single pair, so that their pattern can have one URL.
fn carried_rules() -> AnalysisConfig {
    AnalysisConfig {
        learned: Some(learned_rule(3).analyse().learned),
        ..AnalysisConfig::default()
    }
}

fn aggressive() -> AnalysisConfig {
    AnalysisConfig::with_policy(canon::Policy::aggressive())
}

/// `n` URLs of each variant pattern, each with its page: on www, on an IP address,
/// over http, with and without a slash, an index file, in another case, with a
/// tracking parameter, with parameters reordered. The www and lower-case URLs are
/// linked, and one upper-case duplicate: "the one that has them".
fn variants(n: u64) -> B {
    let mut b = B::new();
    let home = u("/");
    b.page(&home, 1).start(&home).page(&u("/about"), 2);
    for k in 0..n {
        let t = 100 * (k + 1);
        let www = format!("https://www.example.com/h{k}");
        b.page(&www, t + 1)
            .page(&u(&format!("/h{k}")), t + 1)
            .link(&home, &www);
        b.page(&format!("http://192.0.2.1/i{k}"), t + 2)
            .page(&format!("http://example.org/i{k}"), t + 2);
        b.page(&format!("http://example.com/s{k}"), t + 3)
            .page(&u(&format!("/s{k}")), t + 3);
        b.page(&u(&format!("/d{k}")), t + 4)
            .page(&u(&format!("/d{k}/")), t + 4);
        b.page(&u(&format!("/x{k}/")), t + 5)
            .page(&u(&format!("/x{k}/index.html")), t + 5);
        let lower = u(&format!("/case{k}"));
        b.page(&u(&format!("/Case{k}")), t + 6)
            .page(&lower, t + 6)
            .link(&home, &lower)
            .link(&u("/about"), &lower);
        b.page(&u(&format!("/q{k}")), t + 7)
            .page(&u(&format!("/q{k}?utm_source=x")), t + 7);
        b.page(&u(&format!("/o{k}?a=1&b=2")), t + 8)
            .page(&u(&format!("/o{k}?b=2&a=1")), t + 8);
    }
    b.link(&home, &u("/Case0"));
    b
}

/// `n` pages each served again under an unrelated URL.
fn identical_content(n: u64) -> B {
    let mut b = B::new();
    for k in 0..n {
        b.page(&u(&format!("/a{k}")), 100 + k)
            .page(&u(&format!("/copies/b{k}-copy")), 100 + k);
    }
    b
}

/// `n` pairs of pages 2 SimHash bits apart.
fn near_identical(n: u64) -> B {
    let mut b = B::new();
    for k in 0..n {
        let s = super::sim(5000 + k);
        b.page_sim(&u(&format!("/p{k}")), 100 + 2 * k, s).page_sim(
            &u(&format!("/q{k}")),
            101 + 2 * k,
            s ^ 0b101,
        );
    }
    b
}

/// `n` stories served under two URL patterns.
fn learned_rule(n: u64) -> B {
    let mut b = B::new();
    for k in 0..n {
        b.page(&format!("http://example.com/story?id={k}"), 100 + k)
            .page(&format!("http://example.com/story_{k}"), 100 + k);
    }
    b
}

/// `n` pairs of different pages with and without a trailing slash.
fn rule_does_not_hold(n: u64) -> B {
    let mut b = B::new();
    for k in 0..n {
        b.page(&u(&format!("/foo{k}")), 100 + 2 * k)
            .page(&u(&format!("/foo{k}/")), 101 + 2 * k);
    }
    b
}

/// A page whose canonical names one URL while `n` redirects name another, and one whose
/// sitemaps list a self-canonical copy.
fn cluster_conflict(n: u64) -> B {
    let mut b = B::new();
    b.page(&u("/new"), 22)
        .canonical(&u("/new"), &u("/page"))
        .page(&u("/page"), 22)
        .canonical(&u("/page"), &u("/page"));
    for k in 0..n {
        b.redirect(&u(&format!("/old{k}")), &u("/new"), 301);
    }
    b.page(&u("/a"), 23).canonical(&u("/a"), &u("/a"));
    b.page(&u("/a?x=1"), 23).canonical(&u("/a?x=1"), &u("/a"));
    b.page(&u("/b"), 23).canonical(&u("/b"), &u("/b"));
    for k in 0..n {
        b.listed(&u(&format!("/s{k}.xml")), &u("/b"));
    }
    b
}

/// `n` pages with each declaration problem: `n + 1` canonical elements naming the same
/// URL, a header and `n` elements naming `n + 1` URLs, an href that does not resolve,
/// one in the body, a relative one.
fn canonical_declarations(n: u64) -> B {
    let mut b = B::new();
    for k in 0..n {
        let t = 100 * (k + 1);
        let m = u(&format!("/m{k}"));
        b.page(&m, t + 1);
        for _ in 0..=n {
            b.canonical(&m, &m);
        }
        let c = u(&format!("/c{k}"));
        b.page(&c, t + 2).header_canonical(&c, &c);
        for j in 0..n {
            b.canonical(&c, &u(&format!("/c{k}/alt{j}")));
        }
        let i = u(&format!("/i{k}"));
        b.page(&i, t + 3)
            .declare(&i, "", "http://[bad", DeclarationSource::LinkElement, true);
        let o = u(&format!("/o{k}"));
        b.page(&o, t + 4)
            .declare(&o, &o, &o, DeclarationSource::LinkElement, false);
        let r = u(&format!("/r{k}"));
        b.page(&r, t + 5).declare(
            &r,
            &r,
            &format!("/r{k}"),
            DeclarationSource::LinkElement,
            true,
        );
    }
    b
}

/// `n` pages with each canonical target problem: to a redirect, to a 404 and to a URL
/// that does not answer, to a noindex page, to a blocked URL, along a chain of `n + 1`
/// canonicals, in a loop of `n + 1` pages, to another host (syndicated or not), to the
/// other scheme, to an unrelated page; and a canonicalised page linked from `n` pages.
fn canonical_targets(n: u64) -> B {
    let mut b = B::new();
    for j in 0..n {
        b.page(&u(&format!("/list{j}")), 9000 + j);
    }
    for k in 0..n {
        let t = 100 * (k + 1);
        let p = |s: &str| u(&format!("/{s}{k}"));
        b.page(&p("t"), t + 1)
            .canonical(&p("t"), &p("moved"))
            .redirect(&p("moved"), &p("final"), 301)
            .page(&p("final"), t + 1);
        b.page(&p("e"), t + 2)
            .canonical(&p("e"), &p("gone"))
            .status(&p("gone"), 404);
        b.page(&p("w"), t + 3)
            .canonical(&p("w"), &p("slow"))
            .no_response(&p("slow"), "timeout");
        b.page(&p("n"), t + 4)
            .canonical(&p("n"), &p("ni"))
            .page(&p("ni"), t + 4)
            .noindex(&p("ni"));
        b.page(&p("b"), t + 5)
            .canonical(&p("b"), &p("blk"))
            .blocked(&p("blk"));
        let chain = |j: u64| u(&format!("/c{k}/{j}"));
        for j in 0..=n {
            b.page(&chain(j), t + 6).canonical(&chain(j), &chain(j + 1));
        }
        b.page(&chain(n + 1), t + 6)
            .canonical(&chain(n + 1), &chain(n + 1));
        let ring = |j: u64| u(&format!("/l{k}/{}", j % (n + 1)));
        for j in 0..=n {
            b.page(&ring(j), t + 7).canonical(&ring(j), &ring(j + 1));
        }
        let other = format!("https://other.org/x{k}");
        b.page(&p("x"), t + 8)
            .canonical(&p("x"), &other)
            .skipped(&other, "out_of_scope");
        let original = format!("https://other.org/orig{k}");
        b.page(&p("syn"), t + 9)
            .page(&original, t + 9)
            .canonical(&p("syn"), &original);
        let http = format!("http://example.com/s{k}");
        b.page(&p("s"), t + 10)
            .canonical(&p("s"), &http)
            .skipped(&http, "max_depth");
        b.page(&p("un"), t + 11)
            .canonical(&p("un"), &p("v"))
            .page(&p("v"), t + 12);
        b.page(&p("var"), t + 13)
            .canonical(&p("var"), &p("main"))
            .page(&p("main"), t + 13)
            .canonical(&p("main"), &p("main"));
        for j in 0..n {
            b.link(&u(&format!("/list{j}")), &p("var"));
        }
    }
    b
}

/// Redirect problems, `n` of each or `n` long: a chain of `n + 1` hops that the crawler
/// also found too long, a loop of `n` URLs, a loop only the crawler saw, temporary
/// canonical moves, http pages answering on a host that redirects to https, meta
/// refreshes, redirects to errors linked from `n` pages (one finding from three on),
/// to a URL that does not answer, to a Location that does not resolve, unlinked and
/// listed in a sitemap; links from `n` pages to permanent and temporary redirects.
fn comment_pages(n: u64) -> B {
    let mut b = B::new();
    let home = u("/");
    let sitemap = u("/sitemap.xml");
    b.page(&home, 1).start(&home);
    b.sitemap(&sitemap);
    for j in 0..n {
        let post = u(&format!("/2024/{j}/post/"));
        let comments = format!("{post}comment-page-2/");
        b.page(&post, 10 + j)
            .canonical(&post, &comments)
            .link(&home, &post);
        b.page(&comments, 10 + j).canonical(&comments, &comments);
        b.listed(&sitemap, &post);
    }
    b
}

fn redirects(n: u64) -> B {
    let mut b = B::new();
    let home = u("/");
    b.page(&home, 1).start(&home);
    let pages: Vec<String> = (0..n).map(|j| u(&format!("/p{j}"))).collect();
    for (j, p) in pages.iter().enumerate() {
        b.page(p, 10 + j as u64).link(&home, p);
    }
    let hop = |j: u64| u(&format!("/a/{j}"));
    for j in 0..=n {
        b.redirect(&hop(j), &hop(j + 1), 301);
    }
    b.page(&hop(n + 1), 2)
        .chain_problem(&hop(0), ChainProblem::TooLong, n as u32);
    for j in 0..n {
        b.redirect(
            &u(&format!("/r/{j}")),
            &u(&format!("/r/{}", (j + 1) % n)),
            301,
        );
    }
    b.redirect(&u("/cl"), &u("/cl2"), 301)
        .page(&u("/cl2"), 3)
        .chain_problem(&u("/cl"), ChainProblem::Loop, n as u32);
    for k in 0..n {
        b.redirect(
            &format!("http://example.com/t{k}"),
            &u(&format!("/t{k}")),
            302,
        )
        .page(&u(&format!("/t{k}")), 100 + k);
        b.page(&format!("http://example.com/legacy{k}"), 200 + k);
        b.meta_refresh(&u(&format!("/m{k}")), &u(&format!("/target{k}")))
            .page(&u(&format!("/target{k}")), 300 + k);
        let (old, missing) = (u(&format!("/old{k}")), u(&format!("/missing{k}")));
        b.redirect(&old, &missing, 301).status(&missing, 404);
        let (moved, new) = (u(&format!("/moved{k}")), u(&format!("/new{k}")));
        b.redirect(&moved, &new, 301).page(&new, 400 + k);
        for p in &pages {
            b.link(p, &old).link(p, &moved);
        }
    }
    b.redirect(&u("/old-slow"), &u("/slow"), 301)
        .no_response(&u("/slow"), "timeout")
        .unresolved(&u("/bad"), 301)
        .redirect(&u("/lonely"), &u("/nowhere"), 301)
        .status(&u("/nowhere"), 410)
        .redirect(&u("/listed-dead"), &u("/dead"), 301)
        .status(&u("/dead"), 404)
        .listed(&u("/sitemap.xml"), &u("/listed-dead"))
        .redirect(&u("/account"), &u("/login"), 302)
        .page(&u("/login"), 500);
    for p in &pages {
        b.link(p, &u("/old-slow"))
            .link(p, &u("/bad"))
            .link(p, &u("/account"));
    }
    b
}

/// `n` URLs of each problem, each listed in `n` sitemaps: a redirect, a 404, a URL that
/// does not answer, a blocked URL, a noindex page, a canonicalised page, a duplicate,
/// an orphan; and on a shop, a page missing from the sitemap that lists `n` pages like
/// it, linked from `n` pages.
fn sitemap_entries(n: u64) -> B {
    let mut b = B::new();
    let home = u("/");
    b.page(&home, 1).start(&home);
    let sitemaps: Vec<String> = (0..n).map(|j| u(&format!("/sitemap-{j}.xml"))).collect();
    for k in 0..n {
        let p = |s: &str| u(&format!("/{s}{k}"));
        let ok = p("ok");
        b.page(&ok, 100 + k).link(&home, &ok);
        b.redirect(&p("redir"), &ok, 301)
            .status(&p("err"), 404)
            .no_response(&p("slow"), "connect")
            .blocked(&p("blockd"))
            .page(&p("noidx"), 200 + k)
            .noindex(&p("noidx"))
            .page(&p("canon"), 100 + k)
            .canonical(&p("canon"), &ok)
            .page(&format!("{ok}?utm_source=a"), 100 + k)
            .page(&p("orphan"), 300 + k);
        for sm in &sitemaps {
            for url in [
                home.clone(),
                ok.clone(),
                p("redir"),
                p("err"),
                p("slow"),
                p("blockd"),
                p("noidx"),
                p("canon"),
                format!("{ok}?utm_source=a"),
                p("orphan"),
            ] {
                b.listed(sm, &url);
            }
        }
    }
    let shop = |path: &str| format!("https://shop.example.com{path}");
    b.page(&shop("/item/new"), 900).start(&shop("/item/new"));
    for k in 0..n {
        let item = shop(&format!("/item/{k}"));
        b.page(&item, 1000 + k)
            .listed(&shop("/sitemap.xml"), &item)
            .link(&item, &shop("/item/new"))
            .link(&shop("/item/new"), &item);
    }
    b
}

/// Sitemap files: a declared one answering 404, one with `n` reading errors, one with
/// `n` issues over the protocol's limits, one read through `n` redirects; a guessed one
/// redirecting to an undeclared sitemap, and a guessed one answering 503.
fn sitemap_files(n: u64) -> B {
    const FATAL: [&str; 3] = ["malformed_xml", "invalid_utf8", "not_a_sitemap"];
    const LIMITS: [&str; 3] = ["too_many_urls", "oversized", "entry_cap_reached"];
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    let missing = b.sitemap(&u("/missing.xml"));
    missing.status = Some(404);
    missing.error = Some("status 404".into());
    for j in 0..n as usize {
        b.sitemap_issue(
            &u("/broken.xml"),
            FATAL[j % 3],
            &format!("at line {}", j + 1),
        )
        .sitemap_issue(
            &u("/big.xml"),
            LIMITS[j % 3],
            &format!("{} entries", 50_001 + j),
        );
        let to = if j + 1 == n as usize {
            u("/new.xml")
        } else {
            u(&format!("/moved-{j}.xml"))
        };
        b.sitemap_issue(&u("/old.xml"), "redirected", &format!("301 to {to}"));
    }
    let guess = u("/sitemap.xml");
    b.sitemap(&guess).found_via = SitemapSource::Guessed;
    b.sitemap_issue(
        &guess,
        "redirected",
        &format!("302 to {}", u("/wp-sitemap.xml")),
    );
    let other = b.sitemap("https://www2.example.com/sitemap.xml");
    other.found_via = SitemapSource::Guessed;
    other.status = Some(503);
    other.error = Some("status 503".into());
    b
}

/// Crawler traps of `n` URLs linked from `n` pages (a numeric pattern, faceted
/// navigation, repeated segments), and `n` blocked URLs that duplicate pages, each
/// linked from `n` pages and listed in a sitemap.
fn traps_and_robots(n: u64) -> B {
    let mut b = B::new();
    let home = u("/");
    b.page(&home, 1).start(&home).page(&u("/shop/"), 2);
    let pages: Vec<String> = (0..n).map(|j| u(&format!("/p{j}"))).collect();
    for (j, p) in pages.iter().enumerate() {
        b.page(p, 10 + j as u64).link(&home, p);
    }
    for k in 0..n {
        let cal = u(&format!("/cal/{k}"));
        b.skipped(&cal, "trap: over 2 URLs like /cal/#");
        let facet = u(&format!("/shop/?color={k}&size=m"));
        b.skipped(
            &facet,
            "trap_facets: over 2 combinations of query parameters on /shop/",
        )
        .link(&u("/shop/"), &facet);
        b.skipped(
            &u(&format!("/t/a/a/a/{k}")),
            "trap: path repeats segment \"a\"",
        );
        let item = u(&format!("/item{k}"));
        let hidden = format!("{item}?sessionid=1");
        b.page(&item, 100 + k)
            .blocked(&hidden)
            .listed(&u("/sitemap.xml"), &hidden);
        for p in &pages {
            b.link(p, &cal).link(p, &hidden);
        }
    }
    b
}

/// Two robots.txt files over 500 KiB (512,000 bytes): one the crawler read to its end,
/// one it cut at 512 KiB.
fn robots_too_large(_: u64) -> B {
    let mut b = B::new();
    b.page(&u("/"), 1).start(&u("/"));
    b.robots("https://example.com", Some(200), 520_000).robots(
        "https://www.example.com",
        Some(200),
        512 * 1024,
    );
    b
}

/// A small site of `n` pages, each linking (in one region, with anchor text) to a 404,
/// to a URL that does not answer, to a broken URL whose page lives at another URL of
/// the same key, to a redirect, to a canonicalised page, to a blocked duplicate, and to
/// its own broken special page (one template slot from five pages on).
fn links(n: u64) -> B {
    let mut b = B::new();
    let home = u("/");
    b.page(&home, 1).start(&home);
    b.status(&u("/gone"), 404)
        .no_response(&u("/slow"), "connect")
        .status(&u("/live?utm_source=x"), 404)
        .page(&u("/live"), 2)
        .redirect(&u("/moved"), &u("/new"), 301)
        .page(&u("/new"), 3)
        .page(&u("/var"), 4)
        .canonical(&u("/var"), &u("/main"))
        .page(&u("/main"), 4)
        .canonical(&u("/main"), &u("/main"))
        .page(&u("/item"), 5)
        .blocked(&u("/item?sessionid=1"));
    for j in 0..n {
        let p = u(&format!("/p{j}"));
        let special = u(&format!("/wiki/Special/P{j}"));
        b.page(&p, 10 + j)
            .link(&home, &p)
            .link_in(&p, &u("/gone"), LinkRegion::Footer, "Old offer")
            .link_in(&p, &u("/slow"), LinkRegion::Navigation, "Status")
            .link_in(&p, &u("/live?utm_source=x"), LinkRegion::Main, "Live")
            .link_in(&p, &u("/moved"), LinkRegion::Header, "Moved")
            .link_in(&p, &u("/var"), LinkRegion::Sidebar, "Variant")
            .link(&p, &u("/item?sessionid=1"))
            .link_in(&p, &special, LinkRegion::Sidebar, "What links here")
            .status(&special, 404);
    }
    b
}

/// One page linking five broken URLs of one slot (the same anchor, path and region).
fn slot_on_one_page(_: u64) -> B {
    let mut b = B::new();
    let home = u("/");
    b.page(&home, 1).start(&home);
    for k in 0..5 {
        let edit = u(&format!("/edit/S{k}"));
        b.link_in(&home, &edit, LinkRegion::Sidebar, "Edit")
            .status(&edit, 404);
    }
    b
}

/// Valid language codes, for `n` alternates.
const LANGS: [&str; 12] = [
    "fi", "cs", "pl", "hu", "ro", "bg", "el", "tr", "ja", "ko", "zh", "ar",
];

/// An en/de pair naming each other with different x-default pages; the en page names
/// alternates that redirect, answer 404 or nothing, are noindex or a duplicate, two
/// invalid codes, and `n + 1` URLs for fr; a page names `n` alternates, none of which
/// names it back, and not itself.
fn hreflang(n: u64) -> B {
    let mut b = B::new();
    let (en, de) = (u("/en/"), u("/de/"));
    b.page(&en, 1).page(&de, 2);
    for p in [&en, &de] {
        b.hreflang(p, "en", &en).hreflang(p, "de", &de);
    }
    b.hreflang(&en, "x-default", &en)
        .hreflang(&de, "x-default", &de);
    b.redirect(&u("/es"), &u("/es/"), 301)
        .page(&u("/es/"), 3)
        .hreflang(&en, "es", &u("/es"))
        .status(&u("/it/"), 404)
        .hreflang(&en, "it", &u("/it/"))
        .no_response(&u("/pt/"), "timeout")
        .hreflang(&en, "pt", &u("/pt/"))
        .page(&u("/nl/"), 4)
        .noindex(&u("/nl/"))
        .hreflang(&en, "nl", &u("/nl/"))
        .page(&u("/sv/"), 5)
        .page(&u("/sv/?utm_source=x"), 5)
        .hreflang(&en, "sv", &u("/sv/?utm_source=x"))
        .hreflang(&en, "en_US", &en)
        .hreflang(&en, "english", &de);
    for j in 0..=n {
        let fr = u(&format!("/fr{j}/"));
        b.page(&fr, 100 + j).hreflang(&en, "fr", &fr);
    }
    let solo = u("/solo/");
    b.page(&solo, 6);
    for (j, lang) in LANGS.iter().take(n as usize).enumerate() {
        let alt = u(&format!("/{lang}/"));
        b.page(&alt, 200 + j as u64).hreflang(&solo, lang, &alt);
    }
    b
}

/// `n + 1` different pages sharing a title, a first heading and a description: the
/// first is also served on www (a cluster of two URLs) and has a numbered second page;
/// with more, the second has an hreflang alternate, the last writes the title in
/// another case and has near-identical text to the second.
fn shared_texts(n: u64) -> B {
    let mut b = B::new();
    let texts = |b: &mut B, url: &str, title: &str| {
        b.texts(url, title, "Weekly roundup", "What happened this week.");
    };
    for k in 0..=n {
        let url = u(&format!("/roundup/{k}/"));
        if k == n && n >= 2 {
            b.page_sim(&url, 100 + k, super::sim(101) ^ 0b101);
            texts(&mut b, &url, "weekly Roundup");
        } else {
            b.page(&url, 100 + k);
            texts(&mut b, &url, "Weekly roundup");
        }
    }
    let www = "https://www.example.com/roundup/0/";
    b.page(www, 100);
    texts(&mut b, www, "Weekly roundup");
    let second = u("/roundup/0/page/2/");
    b.page(&second, 900);
    texts(&mut b, &second, "Weekly roundup");
    if n >= 2 {
        let (one, de) = (u("/roundup/1/"), u("/de/roundup/1/"));
        b.page(&de, 901)
            .hreflang(&one, "de", &de)
            .hreflang(&de, "en", &one);
        texts(&mut b, &de, "Weekly roundup");
    }
    b
}

/// Nouns the checker knows, singular and plural.
const NOUNS: &[(&str, &str)] = &[
    ("page", "pages"),
    ("URL", "URLs"),
    ("redirect", "redirects"),
    ("link", "links"),
    ("pair", "pairs"),
    ("sitemap", "sitemaps"),
    ("hop", "hops"),
    ("word", "words"),
    ("vote", "votes"),
    ("alternate", "alternates"),
    ("element", "elements"),
];

/// Verbs in the third person singular, which a plural subject does not take.
const SINGULAR_VERBS: &[&str] = &[
    "lists",
    "redirects",
    "links",
    "answers",
    "declares",
    "serves",
    "points",
    "is",
    "has",
];

/// Texts that do not agree in number or are not well-formed.
fn faults(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    if text.trim().is_empty() {
        out.push("an empty text".to_owned());
        return out;
    }
    // "page(s)", but not "http(s)".
    if text
        .match_indices("(s)")
        .any(|(i, _)| !text[..i].ends_with("http"))
    {
        out.push(format!("`(s)` in: {text}"));
    }
    // A response after a URL or "which" is a verb: "gets no response", "was not
    // fetched" (a parenthesis may name it: "(no response)").
    for (phrase, after) in [
        ("no response", &["gets ", "("][..]),
        ("not fetched", &["was "][..]),
    ] {
        if text
            .match_indices(phrase)
            .any(|(i, _)| !after.iter().any(|a| text[..i].ends_with(a)))
        {
            out.push(format!("`{phrase}` without a verb in: {text}"));
        }
    }
    for bad in [
        "fix: status",
        "fix: ",
        "; fix",
        "pages, link to",
        "  ",
        " ,",
        " ;",
        " )",
        "( ",
    ] {
        if text.contains(bad) {
            out.push(format!("`{bad}` in: {text}"));
        }
    }
    // ".." that is not an ellipsis "...", and " ." that does not start one.
    let b = text.as_bytes();
    for i in 0..b.len().saturating_sub(1) {
        let dots = b[i..].iter().take_while(|&&c| c == b'.').count();
        if b[i] == b'.' && dots == 2 && (i == 0 || b[i - 1] != b'.') {
            out.push(format!("`..` in: {text}"));
        }
        if b[i] == b' '
            && b[i + 1] == b'.'
            && b[i + 1..].iter().take_while(|&&c| c == b'.').count() < 3
        {
            out.push(format!("` .` in: {text}"));
        }
    }
    out.extend(unbalanced(text));
    let bare = |s: &str| -> String { s.trim_matches(|c: char| !c.is_alphanumeric()).to_owned() };
    // A word, with the punctuation after it ("pages," "URLs)"), not markup ("<link").
    let word = |s: &str| s.chars().next().is_some_and(char::is_alphanumeric);
    let plural = |s: &str| word(s) && NOUNS.iter().any(|&(_, p)| p.eq_ignore_ascii_case(&bare(s)));
    let singular = |s: &str| {
        word(s)
            && NOUNS
                .iter()
                .any(|&(one, _)| one.eq_ignore_ascii_case(&bare(s)))
    };
    // Padded, so that the last words start a window too.
    let words: Vec<&str> = text.split_whitespace().chain(["", ""]).collect();
    for w in words.windows(3) {
        // "1 pages", "1 internal pages", "1 crawled pages"
        if w[0] == "1" && (plural(w[1]) || (plural(w[2]) && !w[1].ends_with(','))) {
            out.push(format!("`1 {} {}` in: {text}", w[1], w[2]));
        }
        // "12 page", "12 internal page"
        let many = !w[0].is_empty() && w[0].bytes().all(|c| c.is_ascii_digit()) && w[0] != "1";
        if many
            && (singular(w[1])
                || (singular(w[2]) && !plural(w[1]) && !w[1].ends_with(',') && w[1] == bare(w[1])))
        {
            out.push(format!("`{} {} {}` in: {text}", w[0], w[1], w[2]));
        }
    }
    for w in words.windows(4) {
        // A pattern's words run into the sentence: "…, on example.com to its URL".
        if w[0].ends_with(',')
            && w[1] == "on"
            && !w[2].ends_with([',', '.', ';', ':'])
            && ["to", "into"].contains(&w[3])
        {
            out.push(format!("`{} {} {} {}` in: {text}", w[0], w[1], w[2], w[3]));
        }
    }
    // A URL that redirects (links, ...) to itself is "itself".
    for w in words.windows(3) {
        if w[0].starts_with("http") && w[0] == w[2].trim_end_matches([',', '.']) {
            out.push(format!("`{} {} {}` in: {text}", w[0], w[1], w[2]));
        }
    }
    // A plural subject and a singular verb: "Sitemaps A, B lists X", "12 URLs redirects".
    let subject = match words.as_slice() {
        [first, ..] if first.chars().next().is_some_and(char::is_uppercase) && plural(first) => {
            Some(1)
        }
        [n, noun, ..] if n.bytes().all(|c| c.is_ascii_digit()) && *n != "1" && plural(noun) => {
            Some(2)
        }
        _ => None,
    };
    if let Some(from) = subject {
        let verb = words[from..]
            .iter()
            .find(|w| !w.starts_with("http") && **w != "and");
        if let Some(v) = verb
            && SINGULAR_VERBS.contains(v)
        {
            out.push(format!("a plural subject with `{v}` in: {text}"));
        }
    }
    for w in words.windows(2).filter(|w| !w[1].is_empty()) {
        // "a URLs", "every pages"
        if ["a", "an", "every"].contains(&w[0].to_ascii_lowercase().as_str()) && plural(w[1]) {
            out.push(format!("`{} {}` in: {text}", w[0], w[1]));
        }
        // "the the"
        let (x, y) = (w[0].to_ascii_lowercase(), w[1].to_ascii_lowercase());
        if x == y && x.bytes().all(|c| c.is_ascii_alphabetic()) {
            out.push(format!("`{} {}` in: {text}", w[0], w[1]));
        }
    }
    out
}

/// Quotes and backticks that do not pair, parentheses and brackets that do not close
/// (outside quoted text, which is crawled text shown as written).
fn unbalanced(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for q in ['"', '`'] {
        if text.matches(q).count() % 2 != 0 {
            out.push(format!("an unpaired {q} in: {text}"));
        }
    }
    let mut open: Vec<char> = Vec::new();
    let mut quoted: Option<char> = None;
    for c in text.chars() {
        match (quoted, c) {
            (Some(q), c) if c == q => quoted = None,
            (Some(_), _) => {}
            (None, '"' | '`') => quoted = Some(c),
            (None, '(' | '[') => open.push(c),
            (None, ')' | ']') => {
                let want = if c == ')' { '(' } else { '[' };
                if open.pop() != Some(want) {
                    out.push(format!("an unopened {c} in: {text}"));
                    return out;
                }
            }
            _ => {}
        }
    }
    if let Some(c) = open.last() {
        out.push(format!("an unclosed {c} in: {text}"));
    }
    out
}

/// Whether a text starts as a sentence does: a capital, a number, a URL or a quote.
fn starts_a_sentence(text: &str) -> bool {
    // Terms written in lower case: "http page", "hreflang should", "robots.txt is".
    ["http", "hreflang", "robots.txt"]
        .iter()
        .any(|t| text.starts_with(t))
        || text
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit() || c == '"')
}

/// Every fault of every text of the analysis's findings: summaries and fixes are
/// sentences, evidence lines are facts, all of them agree in number.
fn check_all(a: &Analysis) -> Vec<String> {
    let mut out = Vec::new();
    for f in &a.findings {
        let at = |fault: String| format!("{}: {fault}", f.id);
        out.extend(faults(&f.summary).into_iter().map(at));
        if !f.summary.ends_with('.') || !starts_a_sentence(&f.summary) {
            out.push(at(format!(
                "a summary that is not a sentence: {}",
                f.summary
            )));
        }
        for e in &f.evidence {
            out.extend(faults(e).into_iter().map(at));
        }
        for fix in &f.fixes {
            let text = fix.to_string();
            out.extend(faults(&text).into_iter().map(at));
            if !text.ends_with('.') || !starts_a_sentence(&text) {
                out.push(at(format!("a fix that is not a sentence: {text}")));
            }
        }
    }
    out
}

#[test]
fn every_kind_reads_right_in_the_singular_and_the_plural() {
    let mut produced: BTreeSet<FindingId> = BTreeSet::new();
    let mut all = Vec::new();
    for s in SCENARIOS {
        for &n in s.counts {
            // With the default listing, and with one URL listed per fix ("and 1 more
            // page", "11 more in the clusters table").
            for max_listed in [100, 1] {
                let mut config = (s.config)();
                config.max_listed = max_listed;
                let a = (s.build)(n).analyse_config(&config);
                for &id in s.kinds {
                    assert!(
                        a.findings_with(id).count() > 0,
                        "{}, n = {n}, max_listed = {max_listed}: no {id} finding: {:#?}",
                        s.name,
                        a.findings
                    );
                }
                produced.extend(a.findings.iter().map(|f| f.id));
                all.extend(check_all(&a).into_iter().map(|fault| {
                    format!("{}, n = {n}, max_listed = {max_listed}: {fault}", s.name)
                }));
            }
        }
    }
    all.sort();
    all.dedup();
    assert!(all.is_empty(), "{}", all.join("\n"));
    let missing = unproduced(&produced);
    assert!(
        missing.is_empty(),
        "no scenario produces {missing:?}: add one to SCENARIOS"
    );
}

/// The kinds of [`FindingId::ALL`] that no scenario produced and that are not listed
/// as impossible to produce.
fn unproduced(produced: &BTreeSet<FindingId>) -> Vec<&'static str> {
    FindingId::ALL
        .iter()
        .filter(|id| !produced.contains(id) && !NOT_PRODUCIBLE.contains(id))
        .map(|id| id.code())
        .collect()
}

#[test]
fn a_kind_without_a_scenario_is_named() {
    let mut produced: BTreeSet<FindingId> = FindingId::ALL.iter().copied().collect();
    assert!(unproduced(&produced).is_empty());
    produced.remove(&FindingId::HreflangXDefault);
    assert_eq!(unproduced(&produced), ["HREFLANG-X-DEFAULT"]);
}

#[test]
fn the_catalog_texts_are_sentences() {
    for &id in FindingId::ALL {
        let why = id.why();
        let faults: Vec<String> = faults(why).into_iter().chain(faults(id.title())).collect();
        assert!(faults.is_empty(), "{id}: {faults:?}");
        assert!(why.ends_with('.') && starts_a_sentence(why), "{id}: {why}");
    }
}

#[test]
fn the_checker_sees_the_faults_it_names() {
    assert_eq!(faults("1 internal pages link to x.").len(), 1);
    assert_eq!(faults("Change links on a and 1 more pages.").len(), 1);
    assert!(faults("Change links on a and 1 more page.").is_empty());
    assert_eq!(faults("3 pair(s) of pages.").len(), 1);
    assert!(faults("not a valid http(s) URL.").is_empty());
    assert!(faults("2 <link rel=\"canonical\"> elements").is_empty());
    assert!(faults("1 internal page links to x; 12 pages link to y.").is_empty());
    // The plural noun after a number other than 1.
    assert_eq!(faults("12 internal page link to x.").len(), 1);
    assert_eq!(faults("after 2 hop.").len(), 1);
    assert_eq!(faults("stopped after 1 hops").len(), 1);
    assert!(faults("on 1 of its 12 pages, 0 URLs.").is_empty());
    // An article or "every" before a plural.
    assert_eq!(faults("Link to a URLs.").len(), 1);
    assert_eq!(faults("On every pages, fix it.").len(), 1);
    assert!(faults("On each of the 12 URLs, a link; each links its own.").is_empty());
    // Spacing and punctuation.
    assert_eq!(faults("Redirect x  to y.").len(), 1);
    assert_eq!(faults("Redirect x to y .").len(), 1);
    assert_eq!(faults("Redirect x , y.").len(), 1);
    assert_eq!(faults("Redirect x to y..").len(), 1);
    assert!(faults("index.html, default.asp, ...").is_empty());
    assert_eq!(faults("Remove the the link.").len(), 1);
    // Pairs that do not close.
    assert_eq!(faults("A link (\"Home\" to x.").len(), 1);
    assert_eq!(faults("A link \"Home to x.").len(), 1);
    assert_eq!(faults("Add `Disallow: /x to robots.txt.").len(), 1);
    assert_eq!(faults("x answers 404).").len(), 1);
    assert!(faults("href \"http://[bad\" (the link element)").is_empty());
    // A pattern's words end before the sentence goes on.
    assert_eq!(
        faults("Redirect each of the 2 URLs in another case, on x.com to y.").len(),
        1
    );
    assert!(faults("Redirect each of the 2 URLs in another case, on x.com, to y.").is_empty());
    // A URL named twice around a verb.
    assert_eq!(
        faults("https://x.com/a redirects https://x.com/a.").len(),
        1
    );
    assert!(faults("https://x.com/a redirects to itself.").is_empty());
    // A plural subject with a singular verb.
    assert_eq!(
        faults("Sitemaps https://x.com/a, https://x.com/b lists https://x.com/c.").len(),
        1
    );
    assert_eq!(faults("12 URLs redirects to x.").len(), 1);
    assert!(faults("Sitemaps https://x.com/a, https://x.com/b list https://x.com/c.").is_empty());
    assert!(faults("Sitemap https://x.com/a lists https://x.com/c.").is_empty());
    // Responses after "which".
    assert_eq!(faults("x, which no response (timeout).").len(), 1);
    assert_eq!(faults("x, which not fetched.").len(), 1);
    assert_eq!(
        faults("The de alternate of x no response (connect).").len(),
        1
    );
    assert!(faults("x gets no response (timeout); y was not fetched (no response).").is_empty());
    assert_eq!(faults(" ").len(), 1);
    // Sentences.
    assert!(starts_a_sentence("https://example.com/ redirects."));
    assert!(!starts_a_sentence("redirect x to y."));
}

#[test]
fn a_link_on_most_pages_is_one_template_fix() {
    let site = |n: u64| {
        let mut b = B::new();
        b.page(&u("/"), 1).start(&u("/"));
        b.page(&u("/target"), 2)
            .redirect(&u("/old"), &u("/target"), 301);
        for k in 0..n {
            let p = u(&format!("/p{k}"));
            b.page(&p, 100 + k).link(&p, &u("/old")).link(&u("/"), &p);
        }
        b.analyse()
    };
    let a = site(12);
    let f = a
        .findings_with(FindingId::LinkToRedirect)
        .find(|f| f.urls[0] == u("/old"))
        .unwrap();
    assert!(
        f.summary
            .starts_with("A link in the site's template, on 12 of its"),
        "{}",
        f.summary
    );
    assert!(f.summary.contains("pages, points to"), "{}", f.summary);
    assert!(
        matches!(
            &f.fixes[..],
            [Fix::UpdateTemplateLink {
                pages: 12,
                to: Some(_),
                ..
            }]
        ),
        "{:#?}",
        f.fixes
    );
    // On a few pages of many, the pages are listed.
    let a = site(2);
    let f = a
        .findings_with(FindingId::LinkToRedirect)
        .find(|f| f.urls[0] == u("/old"))
        .unwrap();
    assert!(
        matches!(&f.fixes[..], [Fix::UpdateLinks { .. }]),
        "{:#?}",
        f.fixes
    );
}

/// `n` pages probed under two rules: their upper-case URLs serve the page, their URLs
/// with a trailing slash redirect to it with a 302 (one more page of each rule answers
/// 404, so that `k of n` differ).
fn probed_variants(n: u64) -> B {
    let mut b = B::new();
    for k in 0..=n {
        let page = u(&format!("/page{k}"));
        b.page(&page, 100 + k);
        let (upper, slash) = (u(&format!("/PAGE{k}")), u(&format!("/page{k}/")));
        if k < n {
            b.page(&upper, 100 + k).redirect(&slash, &page, 302);
        } else {
            b.status(&upper, 404).status(&slash, 404);
        }
        b.probe(&upper, &page, ProbeRule::PathCase)
            .probe(&slash, &page, ProbeRule::TrailingSlash);
    }
    b
}
