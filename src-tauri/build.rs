//! Reads tauri.conf.json and the capabilities at build time.

fn main() {
    tauri_build::build();
}
