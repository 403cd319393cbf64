/**
 * Charts on signed-in pages: SVG drawn on the server by Vega-Lite (compiled
 * to Vega, rendered with `view.toSVG()`, no browser, no canvas, no native
 * module), so a chart is part of the page the CSP already allows — no
 * script, no inline style (Vega writes presentation attributes only) — and
 * works without JavaScript like every other page. We describe charts;
 * the library draws them: no hand-drawn SVG here.
 *
 * Every chart is readable without colour: each series also differs in
 * point shape and dash (lines) or in fill (bars: hollow outline vs solid),
 * the legend shows both, bars carry their values as labels, and the same
 * numbers sit beside the chart as a table. Text is `currentColor`, so the
 * chart follows the page's light or dark mode.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";

/** One line or one set of bars: its name (legend and table heading) and a value per category (null: no value). */
export interface Series {
  name: string;
  values: (number | null)[];
}

export interface ChartSpec {
  kind: "line" | "bar";
  /** What the chart shows, one sentence: the figure's caption and the SVG's accessible name. */
  title: string;
  /** The categories along the x axis (dates, sprint names), in order. */
  categories: string[];
  xLabel: string;
  yLabel: string;
  series: Series[];
}

/** A rendered chart: the SVG markup (from Vega) and the spec it came from, for the table beside it. */
export interface RenderedChart {
  spec: ChartSpec;
  svg: string;
}

const WIDTH = 560;
const HEIGHT = 220;
/** Mid-tone hues that hold on light and dark cards; never the only difference between series. */
const PALETTE = ["#3b6fe0", "#d9822b", "#2e9e6b", "#a34fc4"];
const SHAPES = ["circle", "square", "triangle-up", "diamond"];
const OPACITIES = [0.12, 1, 0.45, 0.75];
const DASHES = [
  [1, 0],
  [6, 4],
  [2, 3],
  [8, 3, 2, 3],
];

// vega and vega-lite are loaded on first use: most processes (the CLI, MCP) never draw a chart.
let libs: Promise<{ vega: typeof import("vega"); vl: typeof import("vega-lite") }> | null = null;
const load = () => {
  libs ??= Promise.all([import("vega"), import("vega-lite")]).then(([vega, vl]) => ({ vega, vl }));
  return libs;
};

/** The Vega-Lite description of a chart: long-form rows, one per category and series. */
function liteSpec(c: ChartSpec) {
  const rows = c.series.flatMap((s, si) =>
    c.categories.map((x, i) => ({ x, i, series: s.name, order: si, value: s.values[i] ?? null })),
  );
  const names = c.series.map((s) => s.name);
  const seriesScale = (range: unknown[]) => ({ domain: names, range: range.slice(0, names.length) });
  const x = {
    field: "x",
    type: "ordinal" as const,
    sort: c.categories,
    title: c.xLabel,
    axis: { labelAngle: c.categories.length > 7 ? -40 : 0, labelLimit: c.categories.length > 7 ? 110 : 200 },
  };
  const y = { field: "value", type: "quantitative" as const, title: c.yLabel };
  const legend = { orient: "bottom" as const, title: null, direction: "horizontal" as const };
  // The legend's swatches take the bars' fill opacity too (hollow vs solid), so they differ without colour.
  const barLegend = {
    ...legend,
    encode: { symbols: { update: { fillOpacity: { scale: "fillOpacity", field: "value" } } } },
  };
  const layer =
    c.kind === "line"
      ? [
          {
            mark: { type: "line" as const, point: { size: 60, filled: true }, strokeWidth: 2.5 },
            encoding: {
              x,
              y,
              color: { field: "series", scale: seriesScale(PALETTE), legend },
              shape: { field: "series", scale: seriesScale(SHAPES), legend },
              strokeDash: { field: "series", scale: seriesScale(DASHES), legend },
            },
          },
        ]
      : [
          {
            mark: { type: "bar" as const, strokeWidth: 2, cornerRadiusTopLeft: 2, cornerRadiusTopRight: 2 },
            encoding: {
              x,
              xOffset: { field: "series", sort: names },
              y,
              stroke: { field: "series", scale: seriesScale(PALETTE), legend: barLegend },
              fill: { field: "series", scale: seriesScale(PALETTE), legend: barLegend },
              fillOpacity: { field: "series", sort: names, scale: seriesScale(OPACITIES), legend: barLegend },
            },
          },
          {
            mark: { type: "text" as const, dy: -6, fontSize: 11, fill: "currentColor" },
            encoding: {
              x,
              xOffset: { field: "series", sort: names },
              y,
              text: { field: "value", type: "quantitative" as const },
            },
          },
        ];
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    description: c.title,
    width: WIDTH,
    height: HEIGHT,
    background: null,
    data: { values: rows.filter((r) => r.value !== null) },
    layer,
    config: {
      view: { stroke: null },
      font: "system-ui, sans-serif",
      axis: {
        labelColor: "currentColor",
        titleColor: "currentColor",
        domainColor: "currentColor",
        tickColor: "currentColor",
        gridColor: "#8885",
        labelFontSize: 11,
        titleFontSize: 12,
        titleFontWeight: 600,
      },
      legend: {
        labelColor: "currentColor",
        labelFontSize: 12,
        symbolStrokeWidth: 2,
        symbolFillColor: "currentColor",
        symbolStrokeColor: "currentColor",
      },
    },
  };
}

/** Draws a chart as SVG markup. Labels are data to Vega, which escapes them as text. */
export async function renderChart(spec: ChartSpec): Promise<RenderedChart> {
  const { vega, vl } = await load();
  const compiled = vl.compile(liteSpec(spec) as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    const svg = await view.toSVG();
    return { spec, svg };
  } finally {
    view.finalize();
  }
}

const fmt = (n: number | null) => (n === null ? "—" : n.toLocaleString("en-US", { maximumFractionDigits: 2 }));

/**
 * A chart and its numbers: the SVG (an image named by the title; the
 * figure's caption says it too) and, beside it, the same figures as a
 * table with the categories down and one column per series.
 */
export const Chart: FC<{ chart: RenderedChart; id?: string }> = ({ chart, id }) => {
  const s = chart.spec;
  return (
    <figure class="chart" id={id}>
      <figcaption>{s.title}</figcaption>
      <div class="chart-body">
        <div class="chart-svg" role="img" aria-label={s.title}>
          {raw(chart.svg)}
        </div>
        {/* A focusable region: the table may scroll sideways in its column, and keyboard users must reach it. */}
        <section class="card scroll chart-table" aria-label={`${s.title}: the figures`} tabindex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">{s.xLabel}</th>
                {s.series.map((x) => (
                  <th scope="col">{x.name}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {s.categories.map((cat, i) => (
                <tr>
                  <th scope="row">{cat}</th>
                  {s.series.map((x) => (
                    <td class="num">{fmt(x.values[i] ?? null)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    </figure>
  );
};
