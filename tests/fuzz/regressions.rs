//! Inputs the fuzz targets (`fuzz/`) found, minimised, one test each.
//!
//! Each test names the target, the artifact it came from and what was
//! wrong; see `fuzz/README.md` for the campaign.

use teebatch::codec::snapshot::{apply_delta, create_delta, item_key, Protocol, Snapshot};

/// `snapshot` target, 1,607-byte artifact `crash-b36d3c0f…` (property
/// failure, not a parser crash): a delta that both removes a key and updates
/// it re-adds the item after the other items (DDNet's `UnpackDelta` quirk),
/// so an applied snapshot does not always list its old items in old order.
/// `create_delta` of such a result, applied again, gives the same items with
/// the same data, with that item back at its old place.
#[test]
fn snapshot_removed_and_updated_key_moves_to_the_end() {
    let a = item_key(40, 0);
    let b = item_key(40, 1);
    let mut old = Snapshot::new();
    old.push(a, &[1, 2]).unwrap();
    old.push(b, &[3]).unwrap();
    // Remove `a`, and update `a` (type 40 has no pre-agreed size).
    let delta = [1, 1, 0, a as i32, 40, 0, 2, 5, 5];
    let mut new = Snapshot::new();
    let mut warnings = Vec::new();
    apply_delta(&old, &delta, Protocol::V06, &mut new, &mut warnings).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(new.keys(), [b, a]);
    assert_eq!(new.get(a), Some(&[6, 7][..]));

    let mut d = Vec::new();
    create_delta(&old, &new, Protocol::V06, &mut d).unwrap();
    assert_eq!(d, [0, 1, 0, 40, 0, 2, 5, 5]);
    let mut again = Snapshot::new();
    apply_delta(&old, &d, Protocol::V06, &mut again, &mut warnings).unwrap();
    assert_eq!(again.keys(), [a, b]);
    assert_eq!(again.get(a), new.get(a));
    assert_eq!(again.get(b), new.get(b));
    assert_eq!(again.canonical_crc32(), new.canonical_crc32());
}
