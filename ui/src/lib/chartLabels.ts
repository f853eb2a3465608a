// A Chart.js plugin that writes each bar's value (thousands separated) just past its end, so a
// chart can be read without hovering.
import type { Chart, Plugin } from "chart.js";
import { formatCount } from "./format";

/** Where and what to write for one bar: its value past its end. */
export interface BarLabel {
  text: string;
  x: number;
  y: number;
}

/** The labels of a chart's first dataset, bar by bar (`horizontal`: bars grow to the right). */
export function barLabels(
  bars: readonly { x: number; y: number }[],
  values: readonly unknown[],
  horizontal: boolean,
): BarLabel[] {
  return bars.map((bar, i) => ({
    text: formatCount(Number(values[i] ?? 0)),
    x: horizontal ? bar.x + 4 : bar.x,
    y: horizontal ? bar.y : bar.y - 4,
  }));
}

/** The plugin; `horizontal` as the chart's `indexAxis: "y"`. */
export function valueLabels(horizontal: boolean): Plugin<"bar"> {
  return {
    id: "dustpanValueLabels",
    afterDatasetsDraw(chart: Chart<"bar">) {
      const meta = chart.getDatasetMeta(0);
      const values = chart.data.datasets[0]?.data ?? [];
      const ctx = chart.ctx;
      ctx.save();
      ctx.fillStyle = "#1b2430";
      ctx.font = "12px system-ui, sans-serif";
      ctx.textAlign = horizontal ? "left" : "center";
      ctx.textBaseline = horizontal ? "middle" : "bottom";
      for (const label of barLabels(meta.data, values, horizontal)) {
        ctx.fillText(label.text, label.x, label.y);
      }
      ctx.restore();
    },
  };
}
