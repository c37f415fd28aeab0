//! The scaling chart: NPS and time-to-depth speedups against thread count, drawn with the
//! `plotters` crate as SVG.

use lazuli::Error;

use super::scaling::{ScalingReport, ScalingRow};

/// The speedups against thread count as an SVG chart: NPS and time to depth, the ideal
/// (linear) line, labelled axes, the machine in the title.
///
/// # Errors
///
/// [`Error::Internal`] if plotting fails (it only draws into a string).
pub fn svg(report: &ScalingReport) -> Result<String, Error> {
    use plotters::prelude::*;
    let fail = |e: &dyn std::fmt::Display| Error::Internal(format!("chart: {e}"));
    let max_threads = report.rows.iter().map(|r| r.threads).max().unwrap_or(1) as f64;
    let top = report
        .rows
        .iter()
        .flat_map(|r| [r.nps_speedup, r.ttd_speedup])
        .fold(max_threads, f64::max)
        * 1.1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let title = format!(
            "lazuli thread scaling: {} ({} cores), bench depth {}",
            report.machine.model, report.machine.logical_cores, report.depth
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(0.8f64..max_threads * 1.05 + 0.2, 0f64..top)
            .map_err(|e| fail(&e))?;
        // One tick per whole thread count, labelled only where a count was measured.
        let measured: Vec<usize> = report.rows.iter().map(|r| r.threads).collect();
        chart
            .configure_mesh()
            .x_desc("threads")
            .y_desc("speedup over 1 thread")
            .x_labels(max_threads as usize + 1)
            .x_label_formatter(&|x| {
                let n = x.round();
                if (x - n).abs() < 1e-6 && measured.contains(&(n as usize)) {
                    format!("{n:.0}")
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| format!("{y:.1}"))
            .draw()
            .map_err(|e| fail(&e))?;
        let ideal = [(1.0, 1.0), (max_threads, max_threads)];
        chart
            .draw_series(LineSeries::new(ideal, BLACK.stroke_width(1)))
            .map_err(|e| fail(&e))?
            .label("ideal (linear)")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK));
        type Curve = (&'static str, RGBColor, fn(&ScalingRow) -> f64);
        let series: [Curve; 2] = [
            ("nodes per second", BLUE, |r| r.nps_speedup),
            ("time to depth", RED, |r| r.ttd_speedup),
        ];
        for (name, color, value) in series {
            let points: Vec<(f64, f64)> = report
                .rows
                .iter()
                .map(|r| (r.threads as f64, value(r)))
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(3)))
                .map_err(|e| fail(&e))?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(3))
                });
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 5, color.filled())),
                )
                .map_err(|e| fail(&e))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::scaling::Machine;

    #[test]
    fn the_scaling_chart_is_well_formed_svg_with_both_curves() {
        let row = |threads: usize, nps: f64, ttd: f64| ScalingRow {
            threads,
            nodes: 1000,
            nps: 1000,
            nps_speedup: nps,
            time_to_depth_ms: 100,
            ttd_speedup: ttd,
            best_move_agreement: 1.0,
            stop_median_us: 50,
            stop_max_us: 80,
        };
        let report = ScalingReport {
            machine: Machine {
                model: "Test CPU".into(),
                logical_cores: 4,
                physical_cores: 4,
            },
            depth: 11,
            hash_mb: 16,
            rounds: 1,
            positions: 37,
            rows: vec![row(1, 1.0, 1.0), row(2, 1.96, 1.5), row(4, 3.8, 2.4)],
        };
        let svg = svg(&report).unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let texts: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or("").trim().to_owned())
            .collect();
        for wanted in [
            "threads",
            "speedup over 1 thread",
            "nodes per second",
            "time to depth",
            "ideal (linear)",
        ] {
            assert!(
                texts.iter().any(|t| t == wanted),
                "missing label {wanted}: {texts:?}"
            );
        }
        assert!(
            texts
                .iter()
                .any(|t| t.contains("Test CPU") && t.contains("4 cores"))
        );
        // Three lines (ideal, NPS, time to depth) and a marker per measured point.
        assert!(
            doc.descendants()
                .filter(|n| n.has_tag_name("polyline"))
                .count()
                >= 3
        );
        assert!(
            doc.descendants()
                .filter(|n| n.has_tag_name("circle"))
                .count()
                >= 6
        );
    }
}
