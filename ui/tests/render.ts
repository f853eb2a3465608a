// Renders a component with the contexts the app provides: a backend, the app state and the
// progress board.
import { render } from "@testing-library/svelte";
import type { Component, ComponentProps } from "svelte";
import { APP, AppState } from "../src/lib/app.svelte";
import { BACKEND } from "../src/lib/backend";
import { BOARD, ProgressBoard } from "../src/lib/progress.svelte";
import type { FakeBackend } from "./fakeBackend";

export function renderWith<C extends Component<any, any, any>>(
  component: C,
  props: ComponentProps<C>,
  backend: FakeBackend,
) {
  const app = new AppState(backend);
  const board = new ProgressBoard();
  const context = new Map<symbol, unknown>([
    [BACKEND, backend],
    [APP, app],
    [BOARD, board],
  ]);
  const result = render(component as Component<Record<string, unknown>>, {
    props: props as Record<string, unknown>,
    context,
  });
  return { ...result, app, board };
}
