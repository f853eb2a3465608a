import { mount } from "svelte";
import "./app.css";
import App from "./App.svelte";
import { tauriBackend } from "./lib/backend";

const target = document.getElementById("app");
if (target) {
  const backend = await tauriBackend();
  mount(App, { target, props: { backend } });
}
