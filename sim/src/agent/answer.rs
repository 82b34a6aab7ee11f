//! Writing the varbinds of one answer: GET, GETNEXT and GETBULK over an OLT's MIB view
//! ([`crate::mib`]) as the OLT is now, cut to fit a datagram. While it writes, it notes
//! which ONU rows the answer reads ([`crate::omci::RowReads`]), so the responder can
//! count the reads and charge the OLT's OMCI time for the optics among them.

use super::{NO_SUCH_NAME, TOO_BIG};
use crate::ber::{Name, ResponseWriter, Value};
use crate::mib::{AnswerContext, InstanceOid, Lookup, MibView, Spot};
use crate::model::SimOlt;
use crate::omci::RowReads;

/// A requested OID: its arcs to search with (an OID with an arc beyond u64 searches as the
/// empty OID), and the OID as received, to echo back.
pub(super) type Requested<'p> = (Vec<u64>, snmp2::Oid<'p>);

/// The error-status and error-index (1-based varbind, 0 for none) to answer with.
pub(super) type ErrorAt = (u32, usize);

/// The filler varbind of an oversized answer: an enterprise OID no profile walks, and a
/// kilobyte of text.
const FILLER_OID: [u64; 8] = [1, 3, 6, 1, 4, 1, 99999, 1];
const FILLER: [u8; 1000] = [b'X'; 1000];

/// One answer being written: the OLT's state and MIB view as they are now, the writer
/// the varbinds go to, up to `limit` bytes, and the ONU rows they read.
pub(super) struct Answer<'a> {
    pub view: &'a MibView,
    pub olt: &'a SimOlt,
    pub ctx: AnswerContext,
    pub writer: &'a mut ResponseWriter,
    pub limit: usize,
    pub reads: &'a mut RowReads,
}

/// What a GETNEXT step found: the instance, its value and where it lies.
type Found<'v> = Option<(InstanceOid, Value<'v>, Option<Spot>)>;

impl Answer<'_> {
    /// GET: the value at each requested OID (in v1 the first missing one is noSuchName).
    pub fn get(&mut self, requested: &[Requested<'_>], v1: bool) -> Option<ErrorAt> {
        for (i, (oid, raw)) in requested.iter().enumerate() {
            let (lookup, spot) = self.view.get_at(self.olt, self.ctx, oid);
            let value = match lookup {
                Lookup::Found(value) => value,
                Lookup::NoSuchObject => Value::NoSuchObject,
                Lookup::NoSuchInstance => Value::NoSuchInstance,
            };
            if v1 && matches!(value, Value::NoSuchObject | Value::NoSuchInstance) {
                return Some((NO_SUCH_NAME, i + 1));
            }
            if !self
                .writer
                .push(Name::Encoded(raw.as_bytes()), value, self.limit)
            {
                return Some((TOO_BIG, 0));
            }
            self.reads.note(self.view, spot, None);
        }
        None
    }

    /// GETNEXT: the instance after each requested OID (in v1 the end of the view is
    /// noSuchName).
    pub fn get_next(&mut self, requested: &[Requested<'_>], v1: bool) -> Option<ErrorAt> {
        for (i, (oid, raw)) in requested.iter().enumerate() {
            let found = self.view.next_at(self.olt, self.ctx, oid);
            if v1 && found.is_none() {
                return Some((NO_SUCH_NAME, i + 1));
            }
            if !self.push_next(found, raw, self.view.column_of(oid)) {
                return Some((TOO_BIG, 0));
            }
        }
        None
    }

    /// GETBULK: the instance after each of the first `non_repeaters` OIDs, then up to
    /// `max_repetitions` rows of the instances after the others, until every one of them
    /// has reached the end of the view or the datagram is full.
    pub fn get_bulk(
        &mut self,
        requested: &[Requested<'_>],
        non_repeaters: usize,
        max_repetitions: usize,
    ) {
        let (singles, repeaters) = requested.split_at(non_repeaters.min(requested.len()));
        for (oid, raw) in singles {
            let found = self.view.next_at(self.olt, self.ctx, oid);
            if !self.push_next(found, raw, self.view.column_of(oid)) {
                break;
            }
        }
        let mut cursors: Vec<Vec<u64>> = repeaters.iter().map(|(oid, _)| oid.clone()).collect();
        // The column each repeater was asked to walk: its reads end where it leaves it.
        let columns: Vec<Option<usize>> = cursors.iter().map(|c| self.view.column_of(c)).collect();
        let mut ended = vec![false; cursors.len()];
        'rows: for _ in 0..max_repetitions {
            if cursors.is_empty() || ended.iter().all(|&e| e) {
                break;
            }
            for ((cursor, ended), &column) in cursors.iter_mut().zip(&mut ended).zip(&columns) {
                let found = if *ended {
                    None
                } else {
                    self.view.next_at(self.olt, self.ctx, cursor)
                };
                let pushed = match found {
                    Some((name, value, spot)) => {
                        let pushed = self.writer.push(Name::Arcs(name.arcs()), value, self.limit);
                        if pushed {
                            self.reads.note(self.view, spot, column);
                        }
                        cursor.clear();
                        cursor.extend_from_slice(name.arcs());
                        pushed
                    }
                    None => {
                        *ended = true;
                        self.writer
                            .push(Name::Arcs(cursor), Value::EndOfMibView, self.limit)
                    }
                };
                if !pushed {
                    break 'rows;
                }
            }
        }
    }

    /// Writes what a GETNEXT from an OID in `column` found, or the end of the view under
    /// the requested name; `false` when it does not fit.
    fn push_next(&mut self, found: Found<'_>, raw: &snmp2::Oid<'_>, column: Option<usize>) -> bool {
        match found {
            Some((name, value, spot)) => {
                let pushed = self.writer.push(Name::Arcs(name.arcs()), value, self.limit);
                if pushed {
                    self.reads.note(self.view, spot, column);
                }
                pushed
            }
            None => self.writer.push(
                Name::Encoded(raw.as_bytes()),
                Value::EndOfMibView,
                self.limit,
            ),
        }
    }
}

/// Pads an answer with filler varbinds until the next would pass `limit`.
pub(super) fn pad_with_filler(writer: &mut ResponseWriter, limit: usize) {
    let mut filler = FILLER_OID.to_vec();
    filler.push(0);
    for n in 1.. {
        filler[FILLER_OID.len()] = n;
        if !writer.push(Name::Arcs(&filler), Value::Octets(&FILLER), limit) {
            break;
        }
    }
}
