//! Tests of `teebatch::map`: the map view, its bounds, `maps check` and
//! the map tools.

mod bounds;
mod check;
mod legacy;
mod tools;
mod view;
