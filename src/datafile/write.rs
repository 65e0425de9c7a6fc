//! Writing version-4 datafiles.

use super::error::Error;
use super::inflate::Inflater;
use super::parse::{Datafile, ItemTypeId};
use libdeflater::{CompressionLvl, Compressor};

/// Builds a version-4 datafile from items and uncompressed data blocks.
///
/// Item types are laid out in the order their first item was added and items
/// of one type in the order they were added, so writing what
/// [`DatafileWriter::from_datafile`] read reproduces the same tables.
#[derive(Clone, Debug, Default)]
pub struct DatafileWriter {
    /// (type_id, id, data)
    items: Vec<(ItemTypeId, u16, Vec<i32>)>,
    data: Vec<Vec<u8>>,
}

impl DatafileWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an item and returns its insertion index.
    pub fn add_item(&mut self, type_id: ItemTypeId, id: u16, data: &[i32]) -> usize {
        self.items.push((type_id, id, data.to_vec()));
        self.items.len() - 1
    }

    /// Adds an uncompressed data block and returns its index.
    pub fn add_data(&mut self, data: &[u8]) -> usize {
        self.data.push(data.to_vec());
        self.data.len() - 1
    }

    pub fn num_items(&self) -> usize {
        self.items.len()
    }

    pub fn num_data(&self) -> usize {
        self.data.len()
    }

    /// Copies every item and every decompressed data block of `df`.
    pub fn from_datafile(df: &Datafile<'_>, inflater: &mut Inflater) -> Result<Self, Error> {
        let mut w = DatafileWriter::new();
        for it in df.items() {
            w.items.push((it.type_id, it.id, it.data.to_vec()));
        }
        for i in 0..df.num_data() {
            w.data.push(df.data(i, inflater)?);
        }
        Ok(w)
    }

    /// Serialises the datafile (version 4, `DATA` magic, zlib level 6).
    pub fn write(&self) -> Vec<u8> {
        // Group items by type, types in order of first appearance.
        let mut type_order: Vec<ItemTypeId> = Vec::new();
        for (t, _, _) in &self.items {
            if !type_order.contains(t) {
                type_order.push(*t);
            }
        }
        let mut ordered: Vec<&(ItemTypeId, u16, Vec<i32>)> = Vec::with_capacity(self.items.len());
        let mut types = Vec::with_capacity(type_order.len());
        for t in &type_order {
            let start = ordered.len();
            ordered.extend(self.items.iter().filter(|(it, _, _)| it == t));
            types.push((*t, start, ordered.len() - start));
        }

        let mut compressor = Compressor::new(CompressionLvl::default());
        let compressed: Vec<Vec<u8>> = self
            .data
            .iter()
            .map(|d| {
                let mut buf = vec![0; compressor.zlib_compress_bound(d.len())];
                let n = compressor
                    .zlib_compress(d, &mut buf)
                    .expect("buffer sized by zlib_compress_bound");
                buf.truncate(n);
                buf
            })
            .collect();

        let item_size: usize = ordered.iter().map(|(_, _, d)| 8 + 4 * d.len()).sum();
        let data_size: usize = compressed.iter().map(Vec::len).sum();
        let n_items = ordered.len();
        let n_data = compressed.len();
        let tables = 12 * types.len() + 4 * n_items + 8 * n_data;
        let data_start = 36 + tables + item_size;
        let file_len = data_start + data_size;

        let mut out = Vec::with_capacity(file_len);
        let put = |out: &mut Vec<u8>, v: usize| out.extend_from_slice(&(v as i32).to_le_bytes());
        out.extend_from_slice(b"DATA");
        put(&mut out, 4);
        put(&mut out, file_len - 16);
        put(&mut out, data_start - 16);
        for v in [types.len(), n_items, n_data, item_size, data_size] {
            put(&mut out, v);
        }
        for &(t, start, num) in &types {
            put(&mut out, t as usize);
            put(&mut out, start);
            put(&mut out, num);
        }
        let mut off = 0;
        for (_, _, d) in &ordered {
            put(&mut out, off);
            off += 8 + 4 * d.len();
        }
        let mut off = 0;
        for c in &compressed {
            put(&mut out, off);
            off += c.len();
        }
        for d in &self.data {
            put(&mut out, d.len());
        }
        for (t, id, d) in &ordered {
            out.extend_from_slice(&(((*t as u32) << 16) | *id as u32).to_le_bytes());
            put(&mut out, 4 * d.len());
            for v in d {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for c in &compressed {
            out.extend_from_slice(c);
        }
        debug_assert_eq!(out.len(), file_len);
        out
    }
}
