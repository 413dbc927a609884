//! Parts from labelled regions: mesh an outline, then label its vertices by region.

use nalgebra::Point2;
use skinweights::mesh::{assign_parts, mesh_outline, LabelledRegion, MeshingOptions, Outline};
use skinweights::{mesh::Mesh, Error};
use skinweights::{MeshError, MeshingProblem, OutlinePlace, VertexPartsProblem};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<Point2<f64>> {
    vec![
        Point2::new(x0, y0),
        Point2::new(x1, y0),
        Point2::new(x1, y1),
        Point2::new(x0, y1),
    ]
}

#[test]
fn a_bar_meshed_and_labelled_by_two_regions() {
    let outline = Outline {
        loops: vec![rect(0.0, -20.0, 200.0, 20.0)],
        segments: vec![
            [Point2::new(0.0, 0.0), Point2::new(100.0, 0.0)],
            [Point2::new(100.0, 0.0), Point2::new(200.0, 0.0)],
        ],
    };
    let options = MeshingOptions::default().with_target_vertices(2000);
    let (v, t, _) = mesh_outline(&outline, &options).unwrap();
    let regions = vec![
        LabelledRegion {
            part: "upper".into(),
            polygon: rect(0.0, -20.0, 100.0, 20.0),
        },
        LabelledRegion {
            part: "lower".into(),
            polygon: rect(100.0, -20.0, 200.0, 20.0),
        },
    ];
    let (parts, labels) = assign_parts(&v, &regions).unwrap();
    assert_eq!(parts, ["upper", "lower"]);
    for (p, &l) in v.iter().zip(&labels) {
        // The shared border x = 100 goes to the region listed first.
        assert_eq!(l, usize::from(p.x > 100.0), "{p}");
    }
    let mesh = Mesh::with_parts(v, t, parts, labels).unwrap();
    mesh.sanity_check().unwrap();
}

#[test]
fn a_vertex_outside_every_region_is_named() {
    let v = vec![Point2::new(1.0, 1.0), Point2::new(50.0, 1.0)];
    let regions = vec![LabelledRegion {
        part: "a".into(),
        polygon: rect(0.0, 0.0, 10.0, 10.0),
    }];
    match assign_parts(&v, &regions) {
        Err(Error::Mesh(MeshError::VertexParts { problem })) => assert_eq!(
            problem,
            VertexPartsProblem::OutsideRegions {
                vertex: 1,
                x: 50.0,
                y: 1.0
            }
        ),
        other => panic!("{other:?}"),
    }
    match assign_parts(&v, &[]) {
        Err(e @ Error::Mesh(MeshError::VertexParts { .. })) => {
            assert_eq!(e.to_string(), "vertex_parts: no labelled regions given");
            assert!(matches!(
                e,
                Error::Mesh(MeshError::VertexParts {
                    problem: VertexPartsProblem::NoRegions
                })
            ))
        }
        other => panic!("{other:?}"),
    }
    let bad = vec![LabelledRegion {
        part: "a".into(),
        polygon: rect(0.0, 0.0, f64::NAN, 1.0),
    }];
    match assign_parts(&v, &bad) {
        Err(e @ Error::Mesh(MeshError::Meshing { .. })) => {
            let message = e.to_string();
            assert!(message.contains(r#"region "a""#), "{message}");
            assert!(message.contains("NaN"), "{message}");
            match e {
                Error::Mesh(MeshError::Meshing {
                    problem: MeshingProblem::BadCoordinate { place, x, .. },
                }) => {
                    assert_eq!(place, OutlinePlace::Region { part: "a".into() });
                    assert!(x.is_nan(), "{x}");
                }
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
}
