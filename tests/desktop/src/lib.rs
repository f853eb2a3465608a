//! Drives the real Dustpan desktop app through `tauri-driver` (which starts
//! WebKitWebDriver and the app) with a small W3C WebDriver client, against the fixture
//! site served on loopback. Used by the end-to-end test (`tests/app.rs`) and by the
//! screenshot program (`src/bin/screenshots.rs`), which take their pictures and check the
//! layout at both window sizes with the same code (`shots`).
//!
//! Needs a display (Xvfb), `tauri-driver` and `WebKitWebDriver` on the PATH, and the app
//! built with its UI embedded (`target/debug/dustpan-desktop`, or `$DUSTPAN_DESKTOP_BIN`).

pub mod app;
pub mod shots;
pub mod webdriver;

pub use app::{App, AppOptions, e2e_dir, wait_for_phase};
pub use shots::{SIZES, Shots};
pub use webdriver::{Element, Session};
