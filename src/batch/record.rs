//! What a batch reports per file: the records of [`crate::report`] made
//! from each layer's errors and warnings, and the envelope of a per-file
//! record ([`Record`]).

pub use crate::kind::Stage;
pub use crate::report::{ErrorRecord, IoKind, WarningRecord};
use serde::{Serialize, Serializer};

impl ErrorRecord {
    /// An I/O failure; kind `not_regular_file` for a FIFO, socket or
    /// device (never opened), `special_filesystem` for a directory the
    /// walk did not enter ([`crate::batch::SpecialFilesystem`]), else `io`.
    ///
    /// An [`crate::batch::archive::ArchiveError`] gives stage `archive` with
    /// its kind, section and offset in the archive.
    pub fn io(err: &std::io::Error) -> Self {
        if let Some(a) = err
            .get_ref()
            .and_then(|e| e.downcast_ref::<crate::batch::archive::ArchiveError>())
        {
            return ErrorRecord {
                stage: Stage::Archive,
                kind: a.kind,
                section: a.section.into(),
                offset: a.offset,
                message: a.to_string(),
            };
        }
        let inner = err.get_ref();
        ErrorRecord {
            stage: Stage::Io,
            kind: if inner.is_some_and(|e| e.is::<crate::batch::NotRegularFile>()) {
                IoKind::NotRegularFile.kind()
            } else if inner.is_some_and(|e| e.is::<crate::batch::SpecialFilesystem>()) {
                IoKind::SpecialFilesystem.kind()
            } else {
                IoKind::Io.kind()
            },
            section: "file".into(),
            offset: 0,
            message: err.to_string(),
        }
    }

    pub fn datafile(e: &crate::datafile::Error) -> Self {
        ErrorRecord {
            stage: Stage::Datafile,
            kind: e.kind.kind(),
            section: e.section.name(),
            offset: e.offset,
            message: e.to_string(),
        }
    }

    pub fn map(e: &crate::map::MapError) -> Self {
        ErrorRecord {
            stage: Stage::Map,
            kind: e.kind.kind(),
            section: e.section.to_string(),
            offset: e.offset,
            message: e.to_string(),
        }
    }

    /// A demo container error (header, embedded map, chunk framing).
    pub fn demo(e: &crate::demo::DemoError) -> Self {
        ErrorRecord {
            stage: Stage::Demo,
            kind: e.kind.kind(),
            section: e.section.to_string(),
            offset: e.offset as u64,
            message: e.to_string(),
        }
    }

    /// The error that ended a demo stream, located by its chunk.
    pub fn stream(e: &crate::demo::stream::StreamError) -> Self {
        ErrorRecord {
            stage: Stage::Stream,
            kind: e.kind.kind(),
            section: format!("chunk {}", e.chunk),
            offset: e.offset as u64,
            message: e.to_string(),
        }
    }
}

impl WarningRecord {
    /// A warning of the datafile layer.
    pub fn datafile(w: &crate::datafile::Warning) -> Self {
        WarningRecord {
            stage: Stage::Datafile,
            kind: w.kind.kind(),
            section: w.section.name(),
            offset: w.offset,
        }
    }

    /// A warning of the map layer.
    pub fn map(w: &crate::map::MapWarning) -> Self {
        WarningRecord {
            stage: Stage::Map,
            kind: w.kind.kind(),
            section: w.section.to_string(),
            offset: w.offset,
        }
    }
}

/// One record of a per-file run (`maps index`, `demos index`, `maps
/// render`, `demos heatmap`'s demos): the envelope every kind shares
/// around the body `B` of its own fields.
///
/// Written as one flat object: `path`, `name`, `size`, the body's fields,
/// `warnings`, then `error` when the file failed (a body without `name`
/// or `warnings` leaves them out: see [`Body`]). The body is a plain
/// `#[derive(Serialize)]` struct; its fields are written into the
/// record's own struct (not through a map as `#[serde(flatten)]` would),
/// so every serializer (JSON, the Arrow rows of
/// [`super::parquet::RecordBatcher`]) sees one struct of that length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record<B> {
    /// The path as found ([`super::Input::display_path`]).
    pub path: String,
    /// The file stem ([`super::Input::stem`]).
    pub name: String,
    /// Bytes as read, else as listed.
    pub size: u64,
    /// The fields of the record's kind.
    pub body: B,
    /// Non-fatal oddities, in the order found.
    pub warnings: Vec<WarningRecord>,
    /// Why the file failed; everything decoded before it is kept.
    pub error: Option<ErrorRecord>,
}

/// The body of a [`Record`]: a struct whose fields are written between
/// the envelope's `size` and `warnings`.
pub trait Body: Serialize {
    /// Whether the record writes its `name` (`demos heatmap`'s demo
    /// records do not).
    const NAME: bool = true;
    /// Whether the record writes its `warnings` (`demos heatmap`'s demo
    /// records have none and do not).
    const WARNINGS: bool = true;
}

impl<B: Default> Record<B> {
    /// A record of `path`, named `name`, of `size` bytes, with an empty
    /// body.
    pub fn new(path: String, name: String, size: u64) -> Self {
        Record {
            path,
            name,
            size,
            ..Record::default()
        }
    }

    /// The record of `input` before it is read: its path, name and listed
    /// size.
    pub fn of(input: &super::Input) -> Self {
        Record::new(input.display_path(), input.stem(), input.listed_size())
    }

    /// The record of `input` that failed with `error` before anything was
    /// decoded.
    pub fn failed(input: &super::Input, error: ErrorRecord) -> Self {
        Record {
            error: Some(error),
            ..Record::of(input)
        }
    }
}

impl<B> Record<B> {
    /// Whether `input` is listed larger than `limit` bytes: then the
    /// record has the error `too_large` and the input is released unread.
    pub fn refuse_over(&mut self, input: &super::Input, limit: u64) -> bool {
        let over = input.listed_size() > limit;
        if over {
            self.fail(ErrorRecord::too_large(limit));
            input.release();
        }
        over
    }

    /// Records `error`, unless the record already has one (the first
    /// error stays: what came after it may follow from it).
    pub fn fail(&mut self, error: ErrorRecord) {
        self.error.get_or_insert(error);
    }

    /// Adds `warnings` after those the record has.
    pub fn warn(&mut self, warnings: impl IntoIterator<Item = WarningRecord>) {
        self.warnings.extend(warnings);
    }

    /// Whether the file failed.
    pub fn is_failed(&self) -> bool {
        self.error.is_some()
    }
}

impl<B: Body> Serialize for Record<B> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // The body opens the record's struct (with its own name and the
        // envelope's fields added to its length) and writes its fields
        // into it; the state comes back for the fields after the body.
        let mut st = self.body.serialize(body::Opener { s, record: self })?;
        if B::WARNINGS {
            st.serialize_field("warnings", &self.warnings)?;
        }
        match &self.error {
            Some(e) => st.serialize_field("error", e)?,
            None => st.skip_field("error")?,
        }
        st.end()
    }
}

/// The serializer a record's body is written with: it accepts one struct
/// and writes its fields into the record's struct.
mod body {
    use super::{Body, Record};
    use serde::ser::{Error, Impossible, Serialize, SerializeStruct, Serializer};

    /// Opens the record's struct when the body opens its own.
    pub(super) struct Opener<'r, S, B> {
        pub(super) s: S,
        pub(super) record: &'r Record<B>,
    }

    /// The record's open struct, taking the body's fields.
    pub(super) struct Fields<T>(T);

    impl<T: SerializeStruct> SerializeStruct for Fields<T> {
        type Ok = T;
        type Error = T::Error;

        fn serialize_field<V: ?Sized + Serialize>(
            &mut self,
            key: &'static str,
            value: &V,
        ) -> Result<(), T::Error> {
            self.0.serialize_field(key, value)
        }

        fn skip_field(&mut self, key: &'static str) -> Result<(), T::Error> {
            self.0.skip_field(key)
        }

        fn end(self) -> Result<T, T::Error> {
            Ok(self.0)
        }
    }

    fn not_a_struct<E: Error>() -> E {
        E::custom("a record body must serialize as a struct")
    }

    /// The methods of a body that is not a struct: each an error.
    macro_rules! not_a_struct {
        ($($f:ident($($a:ty),*) -> $r:ty;)*) => {$(
            fn $f(self, $(_: $a),*) -> Result<$r, S::Error> {
                Err(not_a_struct())
            }
        )*};
    }

    type State<S> = <S as Serializer>::SerializeStruct;
    type No<S> = Impossible<State<S>, <S as Serializer>::Error>;

    impl<S: Serializer, B: Body> Serializer for Opener<'_, S, B> {
        type Ok = State<S>;
        type Error = S::Error;
        type SerializeSeq = No<S>;
        type SerializeTuple = No<S>;
        type SerializeTupleStruct = No<S>;
        type SerializeTupleVariant = No<S>;
        type SerializeMap = No<S>;
        type SerializeStruct = Fields<State<S>>;
        type SerializeStructVariant = No<S>;

        fn serialize_struct(
            self,
            name: &'static str,
            len: usize,
        ) -> Result<Self::SerializeStruct, S::Error> {
            let r = self.record;
            let len = len + 2 + usize::from(B::NAME) + usize::from(B::WARNINGS);
            let len = len + usize::from(r.error.is_some());
            let mut st = self.s.serialize_struct(name, len)?;
            st.serialize_field("path", &r.path)?;
            if B::NAME {
                st.serialize_field("name", &r.name)?;
            }
            st.serialize_field("size", &r.size)?;
            Ok(Fields(st))
        }

        not_a_struct! {
            serialize_bool(bool) -> State<S>;
            serialize_i8(i8) -> State<S>;
            serialize_i16(i16) -> State<S>;
            serialize_i32(i32) -> State<S>;
            serialize_i64(i64) -> State<S>;
            serialize_u8(u8) -> State<S>;
            serialize_u16(u16) -> State<S>;
            serialize_u32(u32) -> State<S>;
            serialize_u64(u64) -> State<S>;
            serialize_f32(f32) -> State<S>;
            serialize_f64(f64) -> State<S>;
            serialize_char(char) -> State<S>;
            serialize_str(&str) -> State<S>;
            serialize_bytes(&[u8]) -> State<S>;
            serialize_none() -> State<S>;
            serialize_unit() -> State<S>;
            serialize_unit_struct(&'static str) -> State<S>;
            serialize_unit_variant(&'static str, u32, &'static str) -> State<S>;
            serialize_seq(Option<usize>) -> No<S>;
            serialize_tuple(usize) -> No<S>;
            serialize_tuple_struct(&'static str, usize) -> No<S>;
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> No<S>;
            serialize_map(Option<usize>) -> No<S>;
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> No<S>;
        }

        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<State<S>, S::Error> {
            Err(not_a_struct())
        }

        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<State<S>, S::Error> {
            Err(not_a_struct())
        }

        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<State<S>, S::Error> {
            Err(not_a_struct())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning() -> WarningRecord {
        WarningRecord {
            stage: Stage::Map,
            kind: "odd",
            section: "item 1".into(),
            offset: 7,
        }
    }

    fn error(kind: &'static str) -> ErrorRecord {
        ErrorRecord {
            stage: Stage::Datafile,
            kind,
            section: "header".into(),
            offset: 3,
            message: "m".into(),
        }
    }

    #[derive(Clone, Debug, Default, PartialEq, Serialize)]
    struct TestBody {
        a: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<String>,
        #[serde(skip)]
        hidden: u8,
    }

    impl Body for TestBody {}

    /// The flat struct a record of [`TestBody`] replaces, as derived.
    #[derive(Serialize)]
    struct Flat<'a> {
        path: &'a str,
        name: &'a str,
        size: u64,
        a: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: &'a Option<String>,
        warnings: &'a [WarningRecord],
        #[serde(skip_serializing_if = "Option::is_none")]
        error: &'a Option<ErrorRecord>,
    }

    /// A record is written as the flat struct it stands for: the
    /// envelope's fields around the body's, skipped fields left out.
    #[test]
    fn a_record_is_written_as_one_flat_struct() {
        let ok = Record {
            body: TestBody {
                a: 1,
                b: Some("x".into()),
                hidden: 9,
            },
            warnings: vec![warning()],
            ..Record::new("p/q.map".into(), "q".into(), 12)
        };
        let mut failed = Record::<TestBody>::new("r".into(), "r".into(), 0);
        failed.fail(error("truncated"));
        for rec in [&ok, &failed] {
            let flat = Flat {
                path: &rec.path,
                name: &rec.name,
                size: rec.size,
                a: rec.body.a,
                b: &rec.body.b,
                warnings: &rec.warnings,
                error: &rec.error,
            };
            assert_eq!(
                serde_json::to_string(rec).unwrap(),
                serde_json::to_string(&flat).unwrap()
            );
        }
        assert_eq!(
            serde_json::to_string(&ok).unwrap(),
            r#"{"path":"p/q.map","name":"q","size":12,"a":1,"b":"x","warnings":[{"stage":"map","kind":"odd","section":"item 1","offset":7}]}"#
        );
        assert_eq!(
            serde_json::to_string(&failed).unwrap(),
            r#"{"path":"r","name":"r","size":0,"a":0,"warnings":[],"error":{"stage":"datafile","kind":"truncated","section":"header","offset":3,"message":"m"}}"#
        );
    }

    /// A body may leave out the envelope's `name` and `warnings` (the
    /// demo records of `demos heatmap`).
    #[test]
    fn a_body_may_leave_out_name_and_warnings() {
        #[derive(Default, Serialize)]
        struct Bare {
            n: u8,
        }
        impl Body for Bare {
            const NAME: bool = false;
            const WARNINGS: bool = false;
        }
        let mut rec = Record::<Bare>::new("d.demo".into(), "d".into(), 5);
        assert_eq!(
            serde_json::to_string(&rec).unwrap(),
            r#"{"path":"d.demo","size":5,"n":0}"#
        );
        rec.fail(error("io"));
        assert!(serde_json::to_string(&rec)
            .unwrap()
            .ends_with(r#""n":0,"error":{"stage":"datafile","kind":"io","section":"header","offset":3,"message":"m"}}"#));
    }

    /// A body that is not a struct is an error of the serializer, not a
    /// panic.
    #[test]
    fn a_body_that_is_not_a_struct_is_an_error() {
        #[derive(Default, Serialize)]
        struct Newtype(u8);
        impl Body for Newtype {}
        let rec = Record::<Newtype>::default();
        let e = serde_json::to_string(&rec).unwrap_err();
        assert!(e.to_string().contains("must serialize as a struct"), "{e}");
    }

    /// The first error stays; a file over the limit is refused unread,
    /// with its listed path, name and size.
    #[test]
    fn the_first_error_stays_and_large_files_are_refused() {
        let input = crate::batch::Input::Embedded {
            name: "maps/big.map",
            bytes: b"0123456789",
        };
        let mut rec = Record::<TestBody>::of(&input);
        assert_eq!(
            (rec.path.as_str(), rec.name.as_str(), rec.size),
            ("embedded:maps/big.map", "big", 10)
        );
        assert!(!rec.refuse_over(&input, 10) && !rec.is_failed());
        assert!(rec.refuse_over(&input, 9));
        assert_eq!(rec.error, Some(ErrorRecord::too_large(9)));
        rec.fail(error("later"));
        assert_eq!(rec.error, Some(ErrorRecord::too_large(9)));
        let failed = Record::<TestBody>::failed(&input, error("io"));
        assert_eq!(failed.error.map(|e| e.kind), Some("io"));
        assert_eq!(failed.size, 10);
    }
}
