//! The files every browser page of the CLI serves from the binary: `common.js` (the
//! stage, loading a VRM, posing it from an anim), `vrm-applier.js` (applying a face to
//! a three-vrm VRM: the npm package's own module, `web/src/vrm-applier.js`, so the
//! pages and the package share one file) and the vendored three.js 0.180.0 and
//! three-vrm 3.5.5 (`assets/viewer/vendor/README.md`), with the content types the
//! pages use. A command adds its own pages with [`viewer_asset!`] and answers with
//! [`serve_asset`].

use omote_serve::Response;

/// JavaScript modules (browsers refuse modules of other types).
pub const JS: &str = "text/javascript; charset=utf-8";
/// Pages.
pub const HTML: &str = "text/html; charset=utf-8";
/// Licences.
pub const TEXT: &str = "text/plain; charset=utf-8";
/// JSON data.
pub const JSON: &str = "application/json";
/// VRM models (GLB).
pub const VRM: &str = "model/gltf-binary";

/// An embedded file and its route.
pub struct Asset {
    /// The exact path it is served at.
    pub route: &'static str,
    /// Its content type.
    pub content_type: &'static str,
    /// Its bytes, from `assets/viewer/`.
    pub body: &'static [u8],
}

/// `viewer_asset!("/route", TYPE, "file under assets/viewer/")`: an [`Asset`] embedded
/// at build time (the path is from the crate root, so any module may use it).
macro_rules! viewer_asset {
    ($route:literal, $type:expr, $file:literal) => {
        $crate::viewer_assets::Asset {
            route: $route,
            content_type: $type,
            body: include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/viewer/",
                $file
            )),
        }
    };
}
pub(crate) use viewer_asset;

/// The fixed routes every page uses.
pub const ASSETS: &[Asset] = &[
    viewer_asset!("/common.js", JS, "common.js"),
    // Not under assets/viewer/: the npm package's module, served as it is.
    Asset {
        route: "/vrm-applier.js",
        content_type: JS,
        body: include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../web/src/vrm-applier.js"
        )),
    },
    viewer_asset!(
        "/vendor/three/three.module.min.js",
        JS,
        "vendor/three/three.module.min.js"
    ),
    viewer_asset!(
        "/vendor/three/three.core.min.js",
        JS,
        "vendor/three/three.core.min.js"
    ),
    viewer_asset!(
        "/vendor/three/examples/jsm/loaders/GLTFLoader.js",
        JS,
        "vendor/three/examples/jsm/loaders/GLTFLoader.js"
    ),
    viewer_asset!(
        "/vendor/three/examples/jsm/utils/BufferGeometryUtils.js",
        JS,
        "vendor/three/examples/jsm/utils/BufferGeometryUtils.js"
    ),
    viewer_asset!(
        "/vendor/three-vrm/three-vrm.module.min.js",
        JS,
        "vendor/three-vrm/three-vrm.module.min.js"
    ),
    viewer_asset!("/vendor/three/LICENSE", TEXT, "vendor/three/LICENSE"),
    viewer_asset!(
        "/vendor/three-vrm/LICENSE",
        TEXT,
        "vendor/three-vrm/LICENSE"
    ),
];

/// The answer for `path` from a command's own `pages`, then [`ASSETS`]; `None`: not an
/// embedded file. Routes match exactly: nothing is derived from the path.
pub fn serve_asset(pages: &[Asset], path: &str) -> Option<Response> {
    pages
        .iter()
        .chain(ASSETS)
        .find(|a| a.route == path)
        .map(|a| Response::ok(a.content_type, a.body))
}

/// Whether every route of `pages` and [`ASSETS`] is unique and every file non-empty
/// (the first offending route otherwise).
#[cfg(test)]
pub fn check_routes(pages: &[Asset]) -> Result<(), &'static str> {
    let all: Vec<&Asset> = pages.iter().chain(ASSETS).collect();
    for (i, a) in all.iter().enumerate() {
        if a.body.is_empty() || all[..i].iter().any(|b| b.route == a.route) {
            return Err(a.route);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_assets_are_served_by_exact_route() {
        assert_eq!(check_routes(&[]), Ok(()));
        for route in ["/common.js", "/vrm-applier.js"] {
            let js = serve_asset(&[], route).unwrap();
            assert_eq!((js.status(), js.content_type()), (200, JS), "{route}");
            assert!(!js.body().is_empty(), "{route}");
        }
        let page = [viewer_asset!("/", HTML, "index.html")];
        assert_eq!(serve_asset(&page, "/").unwrap().content_type(), HTML);
        for path in ["/", "/common.js/", "/vendor/", "/vendor/../common.js", ""] {
            assert!(serve_asset(&[], path).is_none(), "{path}");
        }
        let twice = [viewer_asset!("/common.js", JS, "common.js")];
        assert_eq!(check_routes(&twice), Err("/common.js"));
    }
}
