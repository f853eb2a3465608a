<?php
/*
 * WordPress's own view of the proving ground, as JSON for truth.py: every published
 * post, page and attachment with its permalink (get_permalink), old slugs, comments;
 * categories, tags and authors with their archive links and post counts; the options
 * that shape URLs (posts per page, permalink structure, sticky posts).
 *
 *   WORDPRESS_CONFIG=dustpan-wordpress php dump.php STATE_DIR      (as www-data)
 */
if ( PHP_SAPI !== 'cli' ) { exit( 1 ); }
$_SERVER['HTTP_HOST']   = '127.0.0.1:8710';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
require '/usr/share/wordpress/wp-load.php';

$out = array(
	'home'                => home_url( '/' ),
	'posts_per_page'      => (int) get_option( 'posts_per_page' ),
	'permalink_structure' => get_option( 'permalink_structure' ),
	'show_on_front'       => get_option( 'show_on_front' ),
	'sticky_posts'        => array_map( 'intval', (array) get_option( 'sticky_posts' ) ),
	'thread_comments_depth' => (int) get_option( 'thread_comments_depth' ),
	'wordpress'           => get_bloginfo( 'version' ),
	'posts'               => array(),
	'terms'               => array(),
	'authors'             => array(),
);
$q = get_posts( array( 'post_type' => array( 'post', 'page', 'attachment' ), 'post_status' => array( 'publish', 'inherit' ),
	'numberposts' => -1, 'orderby' => 'ID', 'order' => 'ASC' ) );
foreach ( $q as $p ) {
	$comments = array();
	foreach ( get_comments( array( 'post_id' => $p->ID, 'status' => 'approve', 'orderby' => 'comment_ID', 'order' => 'ASC' ) ) as $c ) {
		$comments[] = array( 'id' => (int) $c->comment_ID, 'parent' => (int) $c->comment_parent );
	}
	$terms = array();
	foreach ( array( 'category', 'post_tag' ) as $tax ) {
		foreach ( (array) wp_get_post_terms( $p->ID, $tax ) as $t ) { $terms[] = array( $tax, $t->slug ); }
	}
	$out['posts'][] = array(
		'id'        => $p->ID,
		'type'      => $p->post_type,
		'status'    => $p->post_status,
		'name'      => $p->post_name,
		'title'     => $p->post_title,
		'parent'    => $p->post_parent,
		'author'    => (int) $p->post_author,
		'date'      => $p->post_date,
		'permalink' => get_permalink( $p ),
		'old_slugs' => array_values( (array) get_post_meta( $p->ID, '_wp_old_slug' ) ),
		'comment_status' => $p->comment_status,
		'comments'  => $comments,
		'terms'     => $terms,
		'file'      => $p->post_type === 'attachment' ? wp_get_attachment_url( $p->ID ) : null,
	);
}
foreach ( array( 'category', 'post_tag' ) as $tax ) {
	foreach ( get_terms( array( 'taxonomy' => $tax, 'hide_empty' => false ) ) as $t ) {
		$out['terms'][] = array( 'taxonomy' => $tax, 'id' => $t->term_id, 'slug' => $t->slug, 'name' => $t->name,
			'count' => (int) $t->count, 'link' => get_term_link( $t ) );
	}
}
foreach ( get_users() as $u ) {
	$out['authors'][] = array( 'id' => $u->ID, 'nicename' => $u->user_nicename, 'link' => get_author_posts_url( $u->ID ),
		'posts' => (int) count_user_posts( $u->ID, 'post', true ) );
}
echo json_encode( $out, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES ), "\n";
