<?php
/**
 * Plugin Name: Loopback guard (Dustpan proving ground)
 * Description: Keeps the site off the internet: every outgoing HTTP request WordPress
 * attempts is logged, and any whose host is not loopback is refused. Update checks,
 * pings and avatars are switched off.
 */

add_filter( 'pre_http_request', function ( $pre, $args, $url ) {
	$host = strtolower( (string) wp_parse_url( $url, PHP_URL_HOST ) );
	$loopback = in_array( $host, array( '127.0.0.1', 'localhost', '::1', '[::1]' ), true );
	if ( defined( 'DUSTPAN_HTTP_LOG' ) ) {
		@file_put_contents(
			DUSTPAN_HTTP_LOG,
			gmdate( 'c' ) . ' ' . ( $loopback ? 'allowed' : 'REFUSED' ) . ' ' . $url . "\n",
			FILE_APPEND
		);
	}
	if ( ! $loopback ) {
		return new WP_Error( 'http_request_not_loopback', 'outgoing request refused: ' . $url );
	}
	return $pre;
}, 0, 3 );

// No mail (the installer's welcome mail), no update checks, no pings, no pingbacks/trackbacks.
add_filter( 'pre_wp_mail', '__return_false' );
add_filter( 'pre_site_transient_update_core', '__return_null' );
add_filter( 'pre_site_transient_update_plugins', '__return_null' );
add_filter( 'pre_site_transient_update_themes', '__return_null' );
remove_action( 'init', 'wp_schedule_update_checks' );
remove_action( 'admin_init', '_maybe_update_core' );
remove_action( 'admin_init', '_maybe_update_plugins' );
remove_action( 'admin_init', '_maybe_update_themes' );
remove_action( 'do_pings', 'do_all_pings', 10 );
remove_action( 'publish_post', '_publish_post_hook', 5 );
add_filter( 'pings_open', '__return_false' );
add_filter( 'xmlrpc_methods', function ( $m ) { unset( $m['pingback.ping'] ); return $m; } );
