//! SVG 1.1 line charts for the HTML page, styled by its CSS classes ([`CSS`]). No I/O.

use std::fmt::Write as _;

/// Width of every chart, in SVG user units (the page scales it to its column).
pub const WIDTH: f64 = 400.0;
/// Left edge of the plot area (room for the tick labels and the axis label).
const LEFT: f64 = 58.0;
const RIGHT: f64 = 12.0;
/// Top of the plot area (room for the title).
const TOP: f64 = 26.0;
const PLOT_H: f64 = 170.0;
/// Below the plot: tick labels and the axis label.
const BELOW: f64 = 40.0;
const LEGEND_ROW: f64 = 15.0;

/// The chart classes of the page's style sheet (Okabe–Ito colours; only bounds are dashed).
pub const CSS: &str = "\
svg.chart{width:100%;height:auto;font-family:sans-serif;font-size:11px}\
.chart text{fill:#222;stroke:none}.chart .t{font-size:12px;font-weight:bold}\
.chart .m{text-anchor:middle}.chart .e{text-anchor:end}\
.chart .ax{fill:none;stroke:#444}.chart .gr{fill:none;stroke:#e3e3e3}\
.chart .ln{fill:none;stroke-width:1.6}.chart .eb{fill:none;stroke-width:1}\
.chart .ring{fill:none;stroke:#c00;stroke-width:1.8}.chart .top{stroke:#000;stroke-width:1.2}\
.chart .bd{fill:none;stroke:#c00;stroke-width:1.4;stroke-dasharray:5 3}.chart text.bdt{fill:#c00}\
.s0{stroke:#0072b2;fill:#0072b2}.s1{stroke:#d55e00;fill:#d55e00}\
.s2{stroke:#009e73;fill:#009e73}.s3{stroke:#cc79a7;fill:#cc79a7}\
.s4{stroke:#e69f00;fill:#e69f00}.s5{stroke:#56b4e9;fill:#56b4e9}\
.s6{stroke:#000;fill:#000}.s7{stroke:#888;fill:#888}";

/// The dash pattern of the bound lines, the only dashed lines of a chart.
pub const BOUND_DASH: &str = "5 3";

/// How a point is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A plain marker.
    Plain,
    /// A red ring around the marker: the measurement fails a check.
    Failed,
    /// A larger, outlined marker: the largest value of its series (the slowest rank).
    Top,
}

/// One point of a series.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Position on the x axis, in axis units (log2 of a size, a rank, …).
    pub x: f64,
    /// The value (y axis units).
    pub y: f64,
    /// The bar from `lo` to `hi` (y axis units), when the chart has bars.
    pub lo: f64,
    /// The top of the bar.
    pub hi: f64,
    /// The tooltip (the point's `<title>`).
    pub title: String,
    /// The marker.
    pub mark: Mark,
}

/// A line of points, in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// The points.
    pub points: Vec<Point>,
}

/// A horizontal bound line (a criterion's bound).
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// The value (y units).
    pub y: f64,
    /// The label (`mpiio.write>=2GB/s`).
    pub label: String,
    /// `None` across the chart, else the x positions (axis units) of its short segments.
    pub at: Option<Vec<f64>>,
}

/// A chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The `id` of the `<svg>` element (letters, digits, `-`).
    pub id: String,
    /// The `class` of the `<svg>` element besides `chart` (what kind of chart).
    pub kind: &'static str,
    /// The title, above the plot.
    pub title: String,
    /// The x axis label, with its unit.
    pub x_label: String,
    /// The y axis label, with its unit.
    pub y_label: String,
    /// The x ticks: position (axis units) and label.
    pub x_ticks: Vec<(f64, String)>,
    /// The lines.
    pub series: Vec<Series>,
    /// Horizontal bound lines.
    pub bounds: Vec<Bound>,
    /// Draw the min–max bar of every point.
    pub bars: bool,
    /// `None`: a y axis from 0 to a nice value above the data ([`y_axis`]). `Some`: the
    /// y ticks, position (axis units, ascending) and label, the axis from the first to
    /// the last (a log scale: positions of log10 values, labels of the values).
    pub y_ticks: Option<Vec<(f64, String)>>,
}

/// `s` with `&`, `<`, `>`, `"` and `'` escaped, for XML text and attribute values; every
/// control character (C0 with tab, line feed and carriage return, DEL, C1) and the
/// non-characters U+FFFE and U+FFFF replaced by U+FFFD: XML 1.0 forbids most of them, and
/// a line end or an escape sequence from a results file has no place in a cell.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => o.push('\u{fffd}'),
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// `<text class="CLASS" x="X" y="Y">BODY</text>`, `body` escaped.
fn text_at(o: &mut String, class: &str, x: f64, y: f64, body: &str) {
    let (x, y) = (c(x), c(y));
    let _ = write!(
        o,
        "<text class=\"{class}\" x=\"{x}\" y=\"{y}\">{}</text>",
        esc(body)
    );
}

/// A coordinate with one decimal (`12.5`, `40`); clamped to ±[`COORD_LIMIT`], 0 for NaN.
fn c(v: f64) -> String {
    let v = if v.is_nan() {
        0.0
    } else {
        v.clamp(-COORD_LIMIT, COORD_LIMIT)
    };
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// The largest coordinate written: far outside any chart (a point off the chart is clipped by
/// the viewer), small enough that every coordinate prints as a short integer.
const COORD_LIMIT: f64 = 1e6;

/// The smallest and largest top of a y axis: a value outside is drawn against this axis (its
/// ticks stay finite and distinct, and `top / 5` neither underflows nor overflows).
const AXIS_RANGE: (f64, f64) = (1e-200, 1e200);

/// A "nice" tick step for values up to `max` (about five ticks): 1, 2, 2.5 or 5 × 10^k.
///
/// Total: 1 for a `max` that is not a positive number (0, negative, NaN, infinite); a finite
/// positive `max` is first clamped to 1e-200 … 1e200, so the step is always finite and > 0.
pub fn nice_step(max: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let raw = max.clamp(AXIS_RANGE.0, AXIS_RANGE.1) / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    let k = [1.0, 2.0, 2.5, 5.0].into_iter().find(|&k| m <= k);
    k.unwrap_or(10.0) * p
}

/// The y axis of values up to `top`: (tick step, number of steps above 0), the axis going from
/// 0 to `step × steps`, the first nice value at or above `top` ([`nice_step`]).
///
/// Total: any `top` (NaN, infinite, 0, negative, subnormal) gives a finite step > 0 and at most
/// [`MAX_STEPS`] steps, so the tick loop ends and every label is finite.
pub fn y_axis(top: f64) -> (f64, u32) {
    let step = nice_step(top);
    let top = if top.is_finite() {
        top.min(AXIS_RANGE.1)
    } else {
        0.0
    };
    let steps = (top / step).ceil();
    // a nice step is at least top / 10 (above `AXIS_RANGE.0`), so steps ≤ 10 but for rounding
    let steps = if steps.is_finite() && steps >= 1.0 {
        (steps as u32).min(MAX_STEPS)
    } else {
        1
    };
    (step, steps)
}

/// The most steps of a y axis ([`y_axis`]); a nice step gives at most 10.
pub const MAX_STEPS: u32 = 12;

/// Bounds above this many times the largest value are not drawn to scale.
const OFF_SCALE: f64 = 2.0;

/// A tick value with the decimals its step needs, in thousands (`12k`) from a step of 1000 on.
fn tick_text(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let (v, step, suffix) = if step >= 1000.0 {
        (v / 1000.0, step / 1000.0, "k")
    } else {
        (v, step, "")
    };
    let exact = |d: &usize| {
        let s = step * 10f64.powi(*d as i32);
        (s - s.round()).abs() < 1e-9 * s.max(1.0)
    };
    let decimals = (0..12).find(exact).unwrap_or(12);
    format!("{v:.decimals$}{suffix}")
}

/// The legend's rows: the series' indices per row, given the plot width.
fn legend_rows(series: &[Series]) -> Vec<Vec<usize>> {
    let avail = WIDTH - LEFT - RIGHT;
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = f64::INFINITY;
    for (i, s) in series.iter().enumerate() {
        let w = entry_width(&s.name);
        if used + w > avail {
            rows.push(Vec::new());
            used = 0.0;
        }
        rows.last_mut().expect("a row").push(i);
        used += w;
    }
    rows
}

/// Width of one legend entry: the sample line, the text (about 6 units a character), a gap.
fn entry_width(name: &str) -> f64 {
    22.0 + 6.0 * name.chars().count() as f64 + 14.0
}

/// The marker of series `series` at (x, y), of about radius `r`, shape by series modulo 4.
fn marker(series: usize, x: f64, y: f64, r: f64, class: Option<&str>, inner: &str) -> String {
    let class = class.map_or(String::new(), |k| format!(" class=\"{k}\""));
    let end = |tag: &str| {
        if inner.is_empty() {
            "/>".to_string()
        } else {
            format!(">{inner}</{tag}>")
        }
    };
    let (cx, cy) = (c(x), c(y));
    let d = match series % 4 {
        0 => {
            return format!(
                "<circle{class} cx=\"{cx}\" cy=\"{cy}\" r=\"{}\"{}",
                c(r),
                end("circle")
            )
        }
        1 => {
            let h = r * 0.9;
            let w = c(2.0 * h);
            format!("M{} {}h{w}v{w}h-{w}z", c(x - h), c(y - h))
        }
        2 => {
            let h = r * 1.3;
            let (top, low) = (c(y - h), c(y + h * 0.5));
            format!("M{cx} {top}L{} {low}H{}z", c(x + h * 0.87), c(x - h * 0.87))
        }
        _ => {
            let h = r * 1.25;
            let (left, right, top, low) = (c(x - h), c(x + h), c(y - h), c(y + h));
            format!("M{cx} {top}L{right} {cy}L{cx} {low}L{left} {cy}z")
        }
    };
    format!("<path{class} d=\"{d}\"{}", end("path"))
}

/// The room below the plot: [`BELOW`], and a line more when an x tick label has two
/// lines (`first\nsecond`).
fn below(chart: &Chart) -> f64 {
    BELOW + if two_line(chart) { TICK_LINE } else { 0.0 }
}

/// The height of a line of tick labels (11px text).
const TICK_LINE: f64 = 11.0;

/// Whether an x tick label of `chart` has a second line.
fn two_line(chart: &Chart) -> bool {
    chart.x_ticks.iter().any(|(_, l)| l.contains('\n'))
}

/// The width of `text` as a tick label, user units: 6.2 a character, wider than the
/// average of 11px sans-serif digits and letters, so that labels this far apart do not
/// touch.
pub fn text_width(text: &str) -> f64 {
    6.2 * text.chars().count() as f64
}

/// User units per x axis unit of a chart whose x ticks are at `ticks` (axis units): the
/// scale [`render`] draws them with.
pub fn x_scale(ticks: &[f64]) -> f64 {
    let (lo, hi) = x_range(ticks);
    (WIDTH - RIGHT - LEFT) / (hi - lo)
}

/// The x axis of ticks at `xs`: their range, padded by 5 % each side (±1 around a
/// single position; 0..1 without any).
fn x_range(xs: &[f64]) -> (f64, f64) {
    let (mut lo, mut hi) = xs
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .map(|x| x.clamp(-COORD_LIMIT, COORD_LIMIT))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if hi - lo < 1e-9 {
        (lo, hi) = (lo - 1.0, hi + 1.0);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

/// The chart's height in user units (with its legend rows).
pub fn height(chart: &Chart) -> f64 {
    TOP + PLOT_H + below(chart) + LEGEND_ROW * legend_rows(&chart.series).len() as f64 + 4.0
}

/// The chart as one `<svg>` element.
pub fn render(chart: &Chart) -> String {
    let (x0, x1, y0, y1) = (LEFT, WIDTH - RIGHT, TOP + PLOT_H, TOP);
    // x: the ticks' range, padded; y: 0 to a nice value above every bar and bound
    let xs: Vec<f64> = chart.x_ticks.iter().map(|(x, _)| *x).collect();
    let (lo, hi) = x_range(&xs);
    let extra = below(chart) - BELOW;
    // only finite values set the axis (a value that is not is drawn at its edge, by `c`)
    let data_top = chart
        .series
        .iter()
        .flat_map(|s| &s.points)
        .flat_map(|p| [p.y, if chart.bars { p.hi } else { p.y }])
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    // a bound far above the data would squash it: such a bound is named at the top
    let on_scale = |b: f64| b.is_finite() && (data_top <= 0.0 || b <= OFF_SCALE * data_top);
    let top = chart
        .bounds
        .iter()
        .map(|b| b.y)
        .filter(|b| on_scale(*b))
        .fold(data_top, f64::max);
    let (step, steps) = y_axis(top);
    let given = chart.y_ticks.as_ref().filter(|t| {
        t.len() >= 2 && t.iter().all(|(y, _)| y.is_finite()) && t[t.len() - 1].0 > t[0].0
    });
    let (ymin, ymax) = match given {
        Some(t) => (t[0].0, t[t.len() - 1].0),
        None => (0.0, step * f64::from(steps)),
    };
    let px = |x: f64| x0 + (x - lo) / (hi - lo) * (x1 - x0);
    let py = |y: f64| y0 - (y.max(ymin) - ymin) / (ymax - ymin) * (y0 - y1);

    let mut o = String::with_capacity(4096);
    let (w, h) = (c(WIDTH), c(height(chart)));
    let _ = write!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" class=\"chart {}\" id=\"{}\" \
         viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\"><title>{}</title>",
        chart.kind,
        esc(&chart.id),
        esc(&chart.title)
    );
    text_at(&mut o, "t m", WIDTH / 2.0, 15.0, &chart.title);
    // grid and y ticks
    let (cx0, cx1, cy0, cy1) = (c(x0), c(x1), c(y0), c(y1));
    let mut grid = String::new();
    let mut labels = String::new();
    let y_ticks: Vec<(f64, String)> = match given {
        Some(t) => t.clone(),
        None => (0..=steps)
            .map(|i| step * f64::from(i))
            .map(|v| (v, tick_text(v, step)))
            .collect(),
    };
    for (v, label) in &y_ticks {
        let y = py(*v);
        let _ = write!(grid, "M{cx0} {}H{cx1}", c(y));
        text_at(&mut labels, "e", x0 - 4.0, y + 3.5, label);
    }
    for (x, label) in &chart.x_ticks {
        let (first, second) = label.split_once('\n').unwrap_or((label, ""));
        text_at(&mut labels, "m", px(*x), y0 + 13.0, first);
        if !second.is_empty() {
            text_at(&mut labels, "m", px(*x), y0 + 13.0 + TICK_LINE, second);
        }
        let _ = write!(grid, "M{} {cy0}v4", c(px(*x)));
    }
    let _ = write!(o, "<path class=\"gr\" d=\"{grid}\"/>{labels}");
    let _ = write!(o, "<path class=\"ax\" d=\"M{cx0} {cy1}V{cy0}H{cx1}\"/>");
    text_at(
        &mut o,
        "m",
        (x0 + x1) / 2.0,
        y0 + 28.0 + extra,
        &chart.x_label,
    );
    let _ = write!(
        o,
        "<text class=\"m\" transform=\"rotate(-90)\" x=\"{}\" y=\"13\">{}</text>",
        c(-(y0 + y1) / 2.0),
        esc(&chart.y_label)
    );
    // half the width of a bound's segment: less than half the smallest tick spacing
    let mut xs: Vec<f64> = chart.x_ticks.iter().map(|t| px(t.0)).collect();
    xs.sort_by(f64::total_cmp);
    let gap = xs
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|g| *g > 0.5)
        .fold(f64::INFINITY, f64::min);
    let half = (gap * 0.4).clamp(5.0, 14.0);
    for b in &chart.bounds {
        let (y, label) = if on_scale(b.y) {
            (py(b.y), b.label.clone())
        } else {
            (y1 + 8.0, format!("{} (above the chart)", b.label))
        };
        let Some(at) = &b.at else {
            let _ = write!(o, "<path class=\"bd\" d=\"M{cx0} {}H{cx1}\"/>", c(y));
            text_at(&mut o, "bdt e", x1 - 2.0, y - 3.0, &label);
            continue;
        };
        let mut d = String::new();
        for x in at {
            let _ = write!(d, "M{} {}H{}", c(px(*x) - half), c(y), c(px(*x) + half));
        }
        // the label beside the last segment, on the side with more room
        let Some(last) = at.iter().map(|x| px(*x)).reduce(f64::max) else {
            continue;
        };
        let (class, tx) = if last > (x0 + x1) / 2.0 {
            ("bdt e", last + half)
        } else {
            (
                "bdt",
                at.iter().map(|x| px(*x)).fold(f64::INFINITY, f64::min) - half,
            )
        };
        let _ = write!(o, "<path class=\"bd\" d=\"{d}\"/>");
        text_at(&mut o, class, tx.clamp(x0, x1), y - 3.0, &label);
    }
    // the series: line, bars, markers
    for (i, s) in chart.series.iter().enumerate() {
        let _ = write!(o, "<g class=\"series s{}\">", i % 8);
        let line: Vec<String> = s
            .points
            .iter()
            .map(|p| format!("{} {}", c(px(p.x)), c(py(p.y))))
            .collect();
        if line.len() > 1 {
            let _ = write!(o, "<path class=\"ln\" d=\"M{}\"/>", line.join("L"));
        }
        if chart.bars {
            let mut d = String::new();
            for p in &s.points {
                let (x, a, b) = (px(p.x), py(p.lo), py(p.hi));
                if (a - b).abs() >= 0.5 {
                    let (x, xl, a, b) = (c(x), c(x - 2.5), c(a), c(b));
                    let _ = write!(d, "M{x} {a}V{b}M{xl} {a}h5M{xl} {b}h5");
                }
            }
            if !d.is_empty() {
                let _ = write!(o, "<path class=\"eb\" d=\"{d}\"/>");
            }
        }
        for p in &s.points {
            let (x, y) = (px(p.x), py(p.y));
            let (class, r) = match p.mark {
                Mark::Top => ("pt top", 4.0),
                _ => ("pt", 2.8),
            };
            let title = format!("<title>{}</title>", esc(&p.title));
            o.push_str(&marker(i, x, y, r, Some(class), &title));
            let (x, y) = (c(x), c(y));
            if p.mark == Mark::Failed {
                let _ = write!(
                    o,
                    "<circle class=\"ring\" cx=\"{x}\" cy=\"{y}\" r=\"5.5\"/>"
                );
            }
        }
        o.push_str("</g>");
    }
    // legend
    let mut y = y0 + below(chart) + 8.0;
    for row in legend_rows(&chart.series) {
        let mut x = x0;
        for i in row {
            let name = &chart.series[i].name;
            let (lx, ly, tx, ty) = (c(x), c(y - 3.5), c(x + 22.0), c(y));
            let mark = marker(i, x + 9.0, y - 3.5, 2.8, None, "");
            let _ = write!(
                o,
                "<g class=\"s{}\"><path class=\"ln\" d=\"M{lx} {ly}h18\"/>{mark}\
                 <text x=\"{tx}\" y=\"{ty}\">{}</text></g>",
                i % 8,
                esc(name)
            );
            x += entry_width(name);
        }
        y += LEGEND_ROW;
    }
    o.push_str("</svg>");
    o
}

/// `chart` as an HTML `<figure>` with `caption` (escaped; none when empty), appended to
/// `out`.
pub fn figure_of(out: &mut String, chart: &Chart, caption: &str) {
    figure_with(out, chart, caption, &[]);
}

/// [`figure_of`] with the `<figure>`'s attributes `data-NAME="VALUE"` of `data` (values
/// escaped; names letters and `-`): what the chart carries, for a reader of the page.
pub fn figure_with(out: &mut String, chart: &Chart, caption: &str, data: &[(&str, String)]) {
    out.push_str("<figure");
    for (name, value) in data {
        let _ = write!(out, " data-{name}=\"{}\"", esc(value));
    }
    out.push('>');
    out.push_str(&render(chart));
    if !caption.is_empty() {
        out.push_str("<figcaption>");
        out.push_str(&esc(caption));
        out.push_str("</figcaption>");
    }
    out.push_str("</figure>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(n: usize) -> Chart {
        Chart {
            id: "size-posix-write".into(),
            kind: "size",
            title: "POSIX Write".into(),
            x_label: "Transfer size (bytes, log scale)".into(),
            y_label: "Throughput (MiB/s)".into(),
            x_ticks: vec![(12.0, "4 KiB".into()), (13.0, "8 KiB".into())],
            series: (0..n)
                .map(|i| Series {
                    name: format!("{} processes", 1 << i),
                    points: vec![
                        Point {
                            x: 12.0,
                            y: 100.0,
                            lo: 90.0,
                            hi: 110.0,
                            title: "a <b> & 'c'".into(),
                            mark: Mark::Plain,
                        },
                        Point {
                            x: 13.0,
                            y: 180.0,
                            lo: 180.0,
                            hi: 180.0,
                            title: "d".into(),
                            mark: Mark::Failed,
                        },
                    ],
                })
                .collect(),
            bounds: vec![Bound {
                y: 150.0,
                label: ">= 150 MiB/s".into(),
                at: None,
            }],
            bars: true,
            y_ticks: None,
        }
    }

    #[test]
    fn markup() {
        let s = render(&chart(3));
        assert!(s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" class=\"chart size\" id=\"size-posix-write\""));
        assert!(s.ends_with("</svg>"));
        assert_eq!(s.matches(" class=\"pt\"").count(), 6);
        assert_eq!(s.matches("<circle class=\"ring\"").count(), 3);
        assert_eq!(s.matches("<g class=\"series ").count(), 3);
        // one bar per point whose min and max differ
        assert_eq!(s.matches("<path class=\"eb\"").count(), 3);
        assert!(s.contains("<title>a &lt;b&gt; &amp; &#39;c&#39;</title>"));
        assert!(s.contains(">Throughput (MiB/s)</text>"));
        assert!(s.contains(">&gt;= 150 MiB/s</text>"));
        // y ticks 0..200 by 50 (above the largest value, 180)
        for t in ["0", "50", "100", "150", "200"] {
            assert!(s.contains(&format!(">{t}</text>")), "{t}");
        }
        assert!(!s.contains(">250<"));
        // a bound far above the data is named, not drawn to scale
        let mut far = chart(1);
        far.bounds = vec![Bound {
            y: 1e6,
            label: ">= 1 TB/s".into(),
            at: None,
        }];
        let s = render(&far);
        assert!(s.contains(">&gt;= 1 TB/s (above the chart)</text>"));
        assert!(s.contains(">200</text>") && !s.contains(">1000k<"));
        // the legend wraps into rows that fit
        let many = chart(8);
        assert_eq!(legend_rows(&many.series).len(), 3);
        assert!(height(&many) > height(&chart(1)));
    }

    #[test]
    fn ticks_and_numbers() {
        assert_eq!(nice_step(180.0), 50.0);
        assert_eq!(nice_step(1000.0), 200.0);
        assert_eq!(nice_step(12.0), 2.5);
        assert_eq!(nice_step(0.9), 0.2);
        assert_eq!(nice_step(0.0), 1.0);
        assert_eq!(tick_text(7.5, 2.5), "7.5");
        assert_eq!(tick_text(0.4, 0.2), "0.4");
        assert_eq!(tick_text(12000.0, 2000.0), "12k");
        assert_eq!(tick_text(7500.0, 2500.0), "7.5k");
        assert_eq!(tick_text(0.0, 2500.0), "0");
        assert_eq!(tick_text(3e6, 1e6), "3000k");
        assert_eq!(tick_text(0.05, 0.025), "0.050");
        assert_eq!(c(12.34), "12.3");
        assert_eq!(c(40.0), "40");
        assert_eq!(c(-0.04), "0");
        assert_eq!(esc("\"x\""), "&quot;x&quot;");
        assert_eq!(
            esc("a\0b\nc\u{1b}[31md\u{7}\t\r\u{7f}\u{85}\u{ffff}é"),
            "a\u{fffd}b\u{fffd}c\u{fffd}[31md\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}é"
        );
    }

    /// A chart of one series with the values `ys` and one bound at `bound`.
    fn chart_of(ys: &[f64], bound: f64) -> Chart {
        let mut ch = chart(1);
        ch.series[0].points = ys
            .iter()
            .enumerate()
            .map(|(i, &y)| Point {
                x: 12.0 + i as f64,
                y,
                lo: y,
                hi: y,
                title: String::new(),
                mark: Mark::Plain,
            })
            .collect();
        ch.bounds[0].y = bound;
        ch
    }

    #[test]
    fn the_axis_is_finite_and_bounded_for_any_value() {
        let odd = [
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            1.7e308,
            5e-324,
            f64::MIN_POSITIVE,
            1e-300,
            0.0,
            -0.0,
            -5.0,
            1e300,
            123.0,
        ];
        for &v in &odd {
            let (step, steps) = y_axis(v);
            assert!(step.is_finite() && step > 0.0, "{v}: {step}");
            assert!((1..=MAX_STEPS).contains(&steps), "{v}: {steps}");
            assert!((step * f64::from(steps)).is_finite(), "{v}");
            for &b in &odd {
                let s = render(&chart_of(&[v, 1.0], b));
                assert!(s.len() < 20_000, "{v} {b}: {} bytes", s.len());
                assert!(!s.contains("NaN") && !s.contains("inf"), "{v} {b}: {s}");
                // every y tick: at most MAX_STEPS + 1 grid lines
                let grid = s.split("<path class=\"gr\" d=\"").nth(1).unwrap();
                let grid = &grid[..grid.find('"').unwrap()];
                assert!(
                    grid.matches('H').count() <= MAX_STEPS as usize + 1,
                    "{grid}"
                );
            }
        }
        // all figures zero and a bound that is infinite: an axis 0..1
        let s = render(&chart_of(&[0.0, 0.0], f64::INFINITY));
        assert!(s.contains(">1</text>"), "{s}");
        assert_eq!(y_axis(180.0), (50.0, 4));
        assert_eq!(y_axis(0.0), (1.0, 1));
    }

    /// The x extents (min, max) of every subpath `M… H…` of the bound paths of `svg`.
    fn bound_segments(svg: &str) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        for part in svg.split("<path class=\"bd\" d=\"").skip(1) {
            let d = &part[..part.find('"').unwrap()];
            for seg in d.split('M').filter(|s| !s.is_empty()) {
                let (start, end) = seg.split_once('H').unwrap();
                let a: f64 = start.split(' ').next().unwrap().parse().unwrap();
                out.push((a, end.parse().unwrap()));
            }
        }
        out
    }

    #[test]
    fn a_bound_with_positions_is_drawn_only_there() {
        let mut ch = chart(2);
        ch.x_ticks = (12..=17).map(|x| (f64::from(x), format!("{x}"))).collect();
        let (lo, hi) = (12.0 - 0.25, 17.0 + 0.25);
        let px = |x: f64| LEFT + (x - lo) / (hi - lo) * (WIDTH - RIGHT - LEFT);
        ch.bounds = vec![
            Bound {
                y: 150.0,
                label: "across".into(),
                at: None,
            },
            Bound {
                y: 120.0,
                label: "at 16".into(),
                at: Some(vec![16.0]),
            },
        ];
        let s = render(&ch);
        let segs = bound_segments(&s);
        assert_eq!(segs.len(), 2, "{s}");
        assert_eq!(segs[0], (LEFT, WIDTH - RIGHT));
        let (a, b) = segs[1];
        // around x = 16 only: clear of the neighbouring ticks 15 and 17
        assert!(a < px(16.0) && px(16.0) < b, "{segs:?}");
        assert!(a > px(15.5) && b < px(16.5), "{segs:?}");
        assert!(s.contains(">at 16</text>"));
        // one segment per position
        ch.bounds[1].at = Some(vec![12.0, 14.0]);
        let segs = bound_segments(&render(&ch));
        assert_eq!(segs.len(), 3);
        assert!(segs[1].1 < px(12.5) && segs[2].0 > px(13.5), "{segs:?}");
    }

    #[test]
    fn series_are_solid_and_told_apart_by_marker_shape() {
        // the bound's dash pattern is the style sheet's only one
        assert_eq!(CSS.matches("stroke-dasharray").count(), 1);
        assert!(CSS.contains(&format!(
            ".chart .bd{{fill:none;stroke:#c00;stroke-width:1.4;stroke-dasharray:{BOUND_DASH}}}"
        )));
        let s = render(&chart(8));
        // every series line (and legend sample) is of class "ln" alone: no dash class
        assert_eq!(s.matches("class=\"ln\"").count(), 8 + 8);
        assert!(!s.contains("class=\"ln "));
        // four marker shapes: circles for series 0 and 4, paths for the others
        let pts = |g: &str| g.matches(" class=\"pt\"").count();
        let groups: Vec<&str> = s.split("<g class=\"series ").skip(1).collect();
        assert_eq!(groups.len(), 8);
        for (i, g) in groups.iter().enumerate() {
            assert_eq!(pts(g), 2, "{g}");
            assert_eq!(g.contains("<circle class=\"pt\""), i % 4 == 0, "{i}: {g}");
        }
        let shapes: std::collections::BTreeSet<String> = (0..4)
            .map(|i| {
                let m = marker(i, 0.0, 0.0, 2.8, None, "");
                m.chars().filter(|c| c.is_ascii_alphabetic()).collect()
            })
            .collect();
        assert_eq!(shapes.len(), 4, "{shapes:?}");
    }
}
