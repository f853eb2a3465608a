<?php
/*
 * Installs WordPress (wp_install) and seeds the proving ground through WordPress's own
 * API, from a fixed seed: every rebuild gives the same slugs, titles, dates, comments.
 *
 *   WORDPRESS_CONFIG=dustpan-wordpress php seed.php STATE_DIR      (as www-data)
 */
if ( PHP_SAPI !== 'cli' ) { exit( 1 ); }
$_SERVER['HTTP_HOST']   = '127.0.0.1:8710';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
define( 'WP_INSTALLING', true );
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/image.php';

mt_srand( 24 );
function pick( $a ) { return $a[ mt_rand( 0, count( $a ) - 1 ) ]; }

$r = wp_install( 'Field Notes', 'admin', 'admin@example.invalid', true, '', 'Adminpass-12345' );
$admin = (int) $r['user_id'];
wp_update_user( array( 'ID' => $admin, 'display_name' => 'Ada Admin' ) );
$anna = wp_insert_user( array( 'user_login' => 'anna', 'user_pass' => 'Annapass-12345', 'user_email' => 'anna@example.invalid',
	'display_name' => 'Anna Berg', 'user_nicename' => 'anna-berg', 'role' => 'author' ) );

foreach ( array(
	'blogdescription'         => 'Notes from the workshop',
	'posts_per_page'          => 10,
	'show_avatars'            => 0,
	'default_pingback_flag'   => 0,
	'default_ping_status'     => 'closed',
	'ping_sites'              => '',
	'thread_comments'         => 1,
	'thread_comments_depth'   => 5,
	'page_comments'           => 0,
	'comment_moderation'      => 0,
	'comment_previously_approved' => 0,
	'comments_notify'         => 0,
	'moderation_notify'       => 0,
	'timezone_string'         => 'UTC',
	'blog_public'             => 1,
	'uploads_use_yearmonth_folders' => 1,
) as $k => $v ) {
	update_option( $k, $v );
}
switch_theme( 'twentytwentythree' );

global $wp_rewrite;
$wp_rewrite->set_permalink_structure( '/%year%/%monthnum%/%postname%/' );
$wp_rewrite->flush_rules( false );

// The installer's sample content goes: the site starts from the seed only.
foreach ( get_posts( array( 'post_type' => array( 'post', 'page' ), 'post_status' => 'any', 'numberposts' => -1 ) ) as $p ) {
	wp_delete_post( $p->ID, true );
}
wp_delete_term( 1, 'category' ) ; // "Uncategorized" stays the default (term 1 cannot go)

$cats = array();
foreach ( array( 'News' => 'news', 'Guides' => 'guides', 'Reviews' => 'reviews', 'Essays' => 'essays', 'Releases' => 'releases' ) as $name => $slug ) {
	$t = wp_insert_term( $name, 'category', array( 'slug' => $slug ) );
	$cats[] = $t['term_id'];
}
$tags = array( 'woodwork', 'metal', 'tools', 'safety', 'paint', 'glue', 'clamps', 'lathe', 'joinery', 'finishing', 'sharpening', 'shop-layout' );

$w1 = array( 'Quiet', 'Sharp', 'Simple', 'Careful', 'Patient', 'Honest', 'Small', 'Slow', 'Rough', 'Clean', 'Old', 'Bright' );
$w2 = array( 'joints', 'benches', 'chisels', 'planes', 'finishes', 'clamps', 'saws', 'drawers', 'boxes', 'stools', 'shelves', 'frames' );
$w3 = array( 'for beginners', 'that last', 'in winter', 'on a budget', 'without power tools', 'from scrap', 'done twice', 'that fit' );
$sent = array(
	'The board was cupped along its whole length, so we flattened one face first.',
	'A sharp edge does more for accuracy than any jig we have tried.',
	'Glue squeeze-out is easier to remove when it has turned rubbery.',
	'We measured twice and still cut the rail a hair short.',
	'Oil finishes bring out the figure but need a week to cure.',
	'The vise jaws were lined with leather to spare the work.',
	'Hand-cut dovetails look best when the baseline is scribed deep.',
	'A winding stick shows twist that the eye alone will miss.',
	'Clamping pressure should close the joint, not starve it of glue.',
	'The lathe sings when the tool rests on the bevel.',
	'Shop layout matters more once the space gets crowded.',
	'Hide glue gives you time to adjust a stubborn assembly.',
	'A card scraper leaves a surface no sandpaper can match.',
	'Paint sticks better to a surface that was degreased first.',
	'We kept the offcuts; half of them became drawer pulls.',
);
$names = array( 'Mira', 'Tom', 'Jules', 'Priya', 'Omar', 'Lena', 'Kofi', 'Sven', 'Ines', 'Hana', 'Bruno', 'Zoe' );

function para( $sent, $n ) {
	$out = array();
	for ( $i = 0; $i < $n; $i++ ) {
		$s = array();
		for ( $j = 0; $j < 3; $j++ ) { $s[] = pick( $sent ); }
		$out[] = "<!-- wp:paragraph -->\n<p>" . implode( ' ', $s ) . "</p>\n<!-- /wp:paragraph -->";
	}
	return implode( "\n\n", $out );
}

// Pages: About (with a child), Contact, Archives (archives, categories, tag cloud blocks).
$about = wp_insert_post( array( 'post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'About', 'post_name' => 'about',
	'post_author' => $admin, 'post_date' => '2024-01-02 10:00:00', 'comment_status' => 'closed', 'menu_order' => 1,
	'post_content' => para( $sent, 3 ) ) );
wp_insert_post( array( 'post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'The Team', 'post_name' => 'team',
	'post_parent' => $about, 'post_author' => $admin, 'post_date' => '2024-01-02 11:00:00', 'comment_status' => 'closed',
	'post_content' => para( $sent, 2 ) ) );
$contact = wp_insert_post( array( 'post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Contact', 'post_name' => 'contact',
	'post_author' => $admin, 'post_date' => '2024-01-03 10:00:00', 'comment_status' => 'closed', 'menu_order' => 2,
	'post_content' => para( $sent, 1 ) ) );
wp_insert_post( array( 'post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Archives', 'post_name' => 'archives',
	'post_author' => $admin, 'post_date' => '2024-01-04 10:00:00', 'comment_status' => 'closed', 'menu_order' => 3,
	'post_content' => "<!-- wp:heading -->\n<h2>By month</h2>\n<!-- /wp:heading -->\n\n<!-- wp:archives /-->\n\n"
		. "<!-- wp:heading -->\n<h2>By topic</h2>\n<!-- /wp:heading -->\n\n<!-- wp:categories {\"showPostCounts\":true} /-->\n\n"
		. "<!-- wp:heading -->\n<h2>Tags</h2>\n<!-- /wp:heading -->\n\n<!-- wp:tag-cloud /-->\n\n"
		. "<!-- wp:paragraph -->\n<p>Written by <a href=\"/author/admin/\">Ada</a> and <a href=\"/author/anna-berg/\">Anna</a>.</p>\n<!-- /wp:paragraph -->" ) );

// Posts.
$posts = array();
$used = array();
$t0 = strtotime( '2024-01-05 09:00:00 UTC' );
for ( $i = 0; $i < 60; $i++ ) {
	do {
		$title = pick( $w1 ) . ' ' . pick( $w2 ) . ' ' . pick( $w3 );
	} while ( isset( $used[ $title ] ) );
	$used[ $title ] = true;
	$date = gmdate( 'Y-m-d H:i:s', $t0 + $i * 9 * 86400 + mt_rand( 0, 8 ) * 3600 );
	$pc = array( $cats[ $i % 5 ] );
	if ( $i % 7 === 3 ) { $pc[] = $cats[ ( $i + 2 ) % 5 ]; }
	$pt = array();
	for ( $k = mt_rand( 0, 3 ); $k > 0; $k-- ) { $pt[] = pick( $tags ); }
	$id = wp_insert_post( array(
		'post_type' => 'post', 'post_status' => 'publish', 'post_title' => $title,
		'post_name' => ( $i === 9 || $i === 21 ) ? 'draft-' . sanitize_title( $title ) : '',
		'post_author' => ( $i % 3 === 2 ) ? $anna : $admin, 'post_date' => $date, 'post_date_gmt' => $date,
		'post_content' => para( $sent, mt_rand( 3, 5 ) ), 'post_category' => $pc, 'tags_input' => array_unique( $pt ),
		'comment_status' => 'open', 'ping_status' => 'closed',
	), true );
	if ( is_wp_error( $id ) ) { fwrite( STDERR, $id->get_error_message() . "\n" ); exit( 1 ); }
	$posts[] = $id;
}
// Two renamed posts (the old slug redirects), and a sticky post.
foreach ( array( 9, 21 ) as $i ) {
	$p = get_post( $posts[ $i ] );
	wp_update_post( array( 'ID' => $p->ID, 'post_name' => sanitize_title( $p->post_title ) ) );
}
stick_post( $posts[40] );

// Images attached to three posts, each linked to its attachment page from the post.
$up = wp_upload_dir( '2024/06' );
foreach ( array( 3, 17, 33 ) as $n => $i ) {
	$img = imagecreatetruecolor( 240, 160 );
	imagefill( $img, 0, 0, imagecolorallocate( $img, 40 + 60 * $n, 120, 200 - 50 * $n ) );
	$file = $up['path'] . "/workbench-$n.png";
	imagepng( $img, $file );
	$att = wp_insert_attachment( array( 'post_mime_type' => 'image/png', 'post_title' => "Workbench photo $n",
		'post_name' => "workbench-photo-$n", 'post_status' => 'inherit', 'post_date' => get_post( $posts[ $i ] )->post_date ),
		$file, $posts[ $i ] );
	wp_update_attachment_metadata( $att, wp_generate_attachment_metadata( $att, $file ) );
	$p = get_post( $posts[ $i ] );
	$html = "<!-- wp:image {\"id\":$att,\"linkDestination\":\"attachment\"} -->\n<figure class=\"wp-block-image\"><a href=\""
		. get_attachment_link( $att ) . "\"><img src=\"" . wp_get_attachment_url( $att ) . "\" alt=\"Workbench $n\" class=\"wp-image-$att\"/></a></figure>\n<!-- /wp:image -->";
	wp_update_post( array( 'ID' => $p->ID, 'post_content' => $html . "\n\n" . $p->post_content ) );
}

// Links that real writers leave in posts: a shortlink, an old slug, an author archive,
// a month archive, a campaign-tagged link, a tag archive.
$renamed = get_post( $posts[9] );
$old = get_post_meta( $renamed->ID, '_wp_old_slug', true );
$links = array(
	5  => '<a href="' . home_url( '/?p=' . $posts[2] ) . '">an earlier note</a>',
	12 => '<a href="' . home_url( gmdate( '/Y/m/', strtotime( $renamed->post_date ) ) . $old . '/' ) . '">the bench post</a>',
	14 => '<a href="' . home_url( '/author/anna-berg/' ) . '">more from Anna</a>',
	26 => '<a href="' . home_url( '/2024/03/' ) . '">everything from March</a>',
	30 => '<a href="' . get_permalink( $posts[4] ) . '?utm_source=newsletter&amp;utm_medium=email">the newsletter pick</a>',
	44 => '<a href="' . home_url( '/tag/joinery/' ) . '">all joinery notes</a>',
	50 => '<a href="' . home_url( '/?page_id=' . $about ) . '">about us</a>',
);
foreach ( $links as $i => $a ) {
	$p = get_post( $posts[ $i ] );
	wp_update_post( array( 'ID' => $p->ID, 'post_content' => $p->post_content
		. "\n\n<!-- wp:paragraph -->\n<p>See also " . $a . ".</p>\n<!-- /wp:paragraph -->" ) );
}

// Threaded comments on most posts.
$nc = 0;
foreach ( $posts as $i => $pid ) {
	if ( $i % 4 === 3 ) { continue; }
	$p = get_post( $pid );
	$t = strtotime( $p->post_date_gmt . ' UTC' );
	$mine = array(); // comment id => depth
	for ( $k = mt_rand( 3, 14 ); $k > 0; $k-- ) {
		$parent = 0;
		$depth = 1;
		if ( $mine && mt_rand( 0, 2 ) > 0 ) {
			$ids = array_keys( $mine );
			$parent = $ids[ mt_rand( 0, count( $ids ) - 1 ) ];
			$depth = $mine[ $parent ] + 1;
			if ( $depth > 5 ) { $parent = 0; $depth = 1; }
		}
		$t += mt_rand( 1, 40 ) * 3600;
		$who = pick( $names );
		$cid = wp_insert_comment( array(
			'comment_post_ID' => $pid, 'comment_parent' => $parent, 'comment_approved' => 1,
			'comment_author' => $who, 'comment_author_email' => strtolower( $who ) . '@example.invalid',
			'comment_author_url' => '', 'comment_author_IP' => '127.0.0.1',
			'comment_date' => gmdate( 'Y-m-d H:i:s', $t ), 'comment_date_gmt' => gmdate( 'Y-m-d H:i:s', $t ),
			'comment_content' => pick( $sent ) . ' ' . pick( $sent ),
		) );
		$mine[ $cid ] = $depth;
		$nc++;
	}
}
wp_update_comment_count_now( 0 );
foreach ( $posts as $pid ) { wp_update_comment_count_now( $pid ); }
$wp_rewrite->flush_rules( false );
printf( "seeded: %d posts, 4 pages, 3 attachments, %d comments, 2 renamed posts, 1 sticky post\n", count( $posts ), $nc );
