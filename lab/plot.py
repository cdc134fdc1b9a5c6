"""Draws a `strata-lab` report (its --json output) as a PNG a reader can read: a ladder as
bars (one bar per variant, the reference's level as a dashed line), a sweep as lines (one
per series); axes with units, a legend, the device in the title; optionally several panels
side by side (a report's "plot_panels").

    python3 lab/plot.py REPORT.json OUT.png

`strata-lab NAME --plot OUT.png` runs this same file (compiled into the binary) with
python3; it needs only matplotlib."""
import json
import sys


# Optional keys: a series' "color" (a matplotlib colour, e.g. "C1") and "style" (below);
# a report's "plot_panels" ([{"title", "xlabel"}, ...]) draws panels side by side, each
# series and reference going to its "panel" (a reference without one goes to every panel).
STYLES = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}


def draw_axes(ax, kind, series, references, logy):
    """One set of axes: bars (categories shared by the series) or lines."""
    if kind == "bars":
        names = []
        for s in series:
            for x in s["x"]:
                if x not in names:
                    names.append(x)
        width = 0.8 / max(1, len(series))
        for k, s in enumerate(series):
            pos = [names.index(x) + (k - (len(series) - 1) / 2) * width for x in s["x"]]
            bars = ax.bar(pos, s["y"], width=width, label=s["label"], color=s.get("color"))
            ax.bar_label(bars, fmt="%.3g", fontsize=7, padding=2)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    else:
        for s in series:
            ax.plot(s["x"], s["y"], marker="o", markersize=3, label=s["label"],
                    color=s.get("color"), linestyle=STYLES.get(s.get("style", "solid"), "-"))
        ax.grid(True, alpha=0.3)
    for ref in references:
        ax.axhline(ref["y"], color="0.3", linestyle="--", linewidth=1)
        ax.annotate(ref["label"], (0.995, ref["y"]), xycoords=("axes fraction", "data"),
                    ha="right", va="bottom", fontsize=8, color="0.3")
    if logy:
        ax.set_yscale("log")


def draw(report, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plot = report["plot"]
    series = plot["series"]
    references = plot.get("references", [])
    panels = report.get("plot_panels") or [{"title": "", "xlabel": plot.get("xlabel", "")}]
    fig, axes = plt.subplots(1, len(panels), figsize=(10 if len(panels) == 1 else 7 * len(panels), 5.5),
                             squeeze=False, sharey=len(panels) > 1)
    for k, (ax, panel) in enumerate(zip(axes[0], panels)):
        mine = [s for s in series if s.get("panel", 0) == k]
        refs = [r for r in references if r.get("panel", k) == k]
        draw_axes(ax, plot["kind"], mine, refs, plot.get("logy"))
        ax.set_xlabel(panel.get("xlabel") or plot.get("xlabel", ""))
        if k == 0:
            ax.set_ylabel(plot.get("ylabel", ""))
        if panel.get("title"):
            ax.set_title(panel["title"], fontsize=10)
        if len(mine) > 1 or plot["kind"] == "lines":
            ax.legend(fontsize=8)
    ys = [y for s in series for y in s["y"]] + [r["y"] for r in references]
    if plot["kind"] != "bars" and not plot.get("logy") and ys and min(ys) >= 0:
        axes[0][0].set_ylim(0, 1.08 * max(ys))  # from 0, so heights compare as ratios (y is shared)
    title = plot.get("title") or report.get("title", "")
    if report.get("device"):
        title += f"\n{report['device']}"
    if len(panels) == 1:
        axes[0][0].set_title(title, fontsize=11)
    else:
        fig.suptitle(title, fontsize=11)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: plot.py REPORT.json OUT.png")
    with open(argv[1]) as f:
        draw(json.load(f), argv[2])


if __name__ == "__main__":
    main(sys.argv)
