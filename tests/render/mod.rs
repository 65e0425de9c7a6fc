//! Tests of `teebatch::render`: pictures of maps, heatmaps and trails of
//! demos.

mod cost;
mod fidelity;
mod full_style;
mod heatmap;
mod heatmap_options;
mod legend;
mod maps_render;
mod picture_options;
mod warnings;
