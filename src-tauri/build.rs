//! Reads tauri.conf.json and the capabilities at build time.

fn main() {
    // The window's files are embedded by `generate_context!`: a new `npm run build` must
    // rebuild the app, which cargo does not see on its own.
    println!("cargo:rerun-if-changed=../ui/dist");
    tauri_build::build();
}
