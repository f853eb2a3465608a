// Checks the Netlify and Vercel fix files with the platforms' own code, offline:
//   node check.mjs DIR
// DIR holds _redirects, vercel.json and cases.json ({netlify: [...], vercel: [...]}, each
// case a request and the answer it must get, or null for "no redirect").
// Netlify: @netlify/redirect-parser parses and validates _redirects (as Netlify's build
// does), then netlify-redirector, Netlify's redirect engine, matches each request on the
// decoded path (as Netlify does). Vercel: vercel.json's redirects are validated against
// the schema of @vercel/routing-utils and turned into routes by it (as the Vercel CLI
// does); each request is matched on the route's regex and host condition.
// Prints {"netlify": [problems], "vercel": [problems], "netlify_rules": n, "vercel_rules": n}.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { parseAllRedirects } from '@netlify/redirect-parser';

const require = createRequire(import.meta.url);
const redirector = require('netlify-redirector');
const routing = require('@vercel/routing-utils');
const Ajv = require('ajv');

const dir = process.argv[2];
const cases = JSON.parse(fs.readFileSync(`${dir}/cases.json`, 'utf8'));
const out = { netlify: [], vercel: [], netlify_rules: 0, vercel_rules: 0 };

{
  const { redirects, errors } = await parseAllRedirects({ redirectsFiles: [`${dir}/_redirects`] });
  for (const e of errors) out.netlify.push(`parse: ${e.message}`);
  out.netlify_rules = redirects.length;
  const matcher = await redirector.parseJSON(JSON.stringify(redirects), {});
  for (const c of cases.netlify) {
    let path = c.path;
    try {
      path = decodeURIComponent(c.path);
    } catch {}
    const m = matcher.match({
      scheme: c.scheme,
      host: c.host,
      path,
      query: c.query,
      getHeader: () => '',
      getCookie: () => '',
    });
    const got = m ? `${m.status}${m.force ? '!' : ''} ${m.to}` : null;
    if (got !== c.expect) out.netlify.push(`${c.scheme}://${c.host}${c.path}?${c.query}: got ${got}, want ${c.expect}`);
  }
}

{
  const config = JSON.parse(fs.readFileSync(`${dir}/vercel.json`, 'utf8'));
  const ajv = new Ajv();
  if (!ajv.validate(routing.redirectsSchema, config.redirects)) out.vercel.push(`schema: ${ajv.errorsText()}`);
  const { routes, error } = routing.getTransformedRoutes({ redirects: config.redirects });
  if (error) out.vercel.push(`routes: ${JSON.stringify(error)}`);
  const list = (routes || []).filter((r) => r.src);
  out.vercel_rules = list.length;
  for (const c of cases.vercel) {
    const r = list.find(
      (r) =>
        new RegExp(r.src).test(c.path) &&
        (r.has || []).every((h) => h.type !== 'host' || (h.value && h.value.eq === c.host)),
    );
    const got = r ? `${r.status} ${r.headers.Location}` : null;
    if (got !== c.expect) out.vercel.push(`${c.host}${c.path}: got ${got}, want ${c.expect}`);
  }
}

console.log(JSON.stringify(out));
