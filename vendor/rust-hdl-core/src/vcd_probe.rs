use crate::atom::Atom;
use crate::block::Block;
use crate::probe::Probe;
use crate::synth::VCDValue;
use crate::type_descriptor::TypeDescriptor;
use crate::type_descriptor::TypeKind;
use std::io::Write;

/// A VCD variable: its code, and (pws patch, PATCH.md) its slot in [VCDProbe::last].
#[derive(Clone, Debug)]
enum VCDIDCode {
    Singleton(vcd::IdCode, usize),
    Composite(Vec<Box<VCDIDCode>>),
}

pub struct VCDProbe<W: Write> {
    vcd: vcd::Writer<W>,
    id_map: IdMap,
    /// The value each variable was last written with.
    last: Vec<Option<VCDValue>>,
}

/// The VCD variables of each signal, by signal id (pws patch, PATCH.md): ids are handed out in
/// order as a design is built, so a vector from the smallest traced id holds them without
/// hashing an id for every changed signal at every half period.
#[derive(Default)]
struct IdMap {
    first: usize,
    codes: Vec<Option<VCDIDCode>>,
}

impl IdMap {
    fn from_pairs(pairs: Vec<(usize, VCDIDCode)>) -> IdMap {
        let Some(first) = pairs.iter().map(|p| p.0).min() else {
            return IdMap::default();
        };
        let last = pairs.iter().map(|p| p.0).max().unwrap_or(first);
        let mut codes = vec![None; last - first + 1];
        for (id, code) in pairs {
            codes[id - first] = Some(code);
        }
        IdMap { first, codes }
    }

    fn get(&self, id: usize) -> Option<&VCDIDCode> {
        self.codes.get(id.checked_sub(self.first)?)?.as_ref()
    }
}

impl<W: Write> VCDProbe<W> {
    pub fn new(w: W) -> VCDProbe<W> {
        Self {
            vcd: vcd::Writer::new(w),
            id_map: IdMap::default(),
            last: Vec::new(),
        }
    }

    pub fn timestamp(&mut self, ts: u64) -> std::io::Result<()> {
        self.vcd.timestamp(ts)
    }
}

struct VCDHeader<W: Write> {
    probe: VCDProbe<W>,
    pairs: Vec<(usize, VCDIDCode)>,
}

fn register_signal<W: Write>(
    name: &str,
    descriptor: &TypeDescriptor,
    vcd: &mut vcd::Writer<W>,
    last: &mut Vec<Option<VCDValue>>,
) -> VCDIDCode {
    let mut singleton = |width: u32| {
        last.push(None);
        VCDIDCode::Singleton(vcd.add_wire(width, name).unwrap(), last.len() - 1)
    };
    match &descriptor.kind {
        TypeKind::Bits(width) | TypeKind::Signed(width) => singleton(*width as u32),
        TypeKind::Enum(_) => singleton(0),
        TypeKind::Composite(k) => {
            let mut ret = vec![];
            for field in k {
                let sub_name = format!("{}${}", name, field.fieldname);
                let code = register_signal(&sub_name, &field.kind, vcd, last);
                ret.push(Box::new(code));
            }
            VCDIDCode::Composite(ret)
        }
    }
}

impl<W: Write> Probe for VCDHeader<W> {
    fn visit_start_scope(&mut self, name: &str, _node: &dyn Block) {
        self.probe.vcd.add_module(name).unwrap();
    }

    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.probe.vcd.add_module(name).unwrap();
    }

    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let probe = &mut self.probe;
        let code = register_signal(name, &signal.descriptor(), &mut probe.vcd, &mut probe.last);
        self.pairs.push((signal.id(), code));
    }

    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.probe.vcd.upscope().unwrap();
    }

    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.probe.vcd.upscope().unwrap();
    }
}

pub fn write_vcd_header<W: Write>(writer: W, uut: &dyn Block) -> VCDProbe<W> {
    let mut visitor = VCDHeader {
        probe: VCDProbe::new(writer),
        pairs: Vec::new(),
    };
    visitor.probe.vcd.timescale(1, vcd::TimescaleUnit::PS).unwrap();
    uut.accept("uut", &mut visitor);
    visitor.probe.vcd.enddefinitions().unwrap();
    visitor.probe.id_map = IdMap::from_pairs(visitor.pairs);
    visitor.probe
}

struct VCDChange<W: Write>(VCDProbe<W>);

impl<W: Write> Probe for VCDChange<W> {
    fn wants_names(&self) -> bool {
        false
    }

    fn visit_atom(&mut self, _name: &str, signal: &dyn Atom) {
        if !signal.take_untraced_change() {
            return;
        }
        if let Some(idc) = self.0.id_map.get(signal.id()) {
            do_vcd_change(&mut self.0.last, &mut self.0.vcd, idc, signal.vcd(), false);
        }
    }
}

pub fn write_vcd_change<W: Write>(vcd: VCDProbe<W>, uut: &dyn Block) -> VCDProbe<W> {
    let mut visitor = VCDChange(vcd);
    uut.accept("uut", &mut visitor);
    visitor.0
}

struct VCDDump<W: Write>(VCDProbe<W>);

impl<W: Write> Probe for VCDDump<W> {
    fn visit_atom(&mut self, _name: &str, signal: &dyn Atom) {
        signal.take_untraced_change();
        if let Some(idc) = self.0.id_map.get(signal.id()) {
            do_vcd_change(&mut self.0.last, &mut self.0.vcd, idc, signal.vcd(), true);
        }
    }
}

fn do_vcd_change<W: Write>(
    last: &mut [Option<VCDValue>],
    vcd: &mut vcd::Writer<W>,
    idc: &VCDIDCode,
    val: VCDValue,
    dump: bool,
) {
    match idc {
        VCDIDCode::Singleton(idc, slot) => {
            if !dump && last[*slot].as_ref() == Some(&val) {
                return;
            }
            match &val {
                VCDValue::Single(s) => {
                    vcd.change_scalar(*idc, s.clone()).unwrap();
                }
                VCDValue::Vector(v) => {
                    if v.len() == 1 {
                        vcd.change_scalar(*idc, v[0]).unwrap();
                    } else {
                        vcd.change_vector(*idc, &v).unwrap();
                    }
                }
                VCDValue::String(t) => {
                    vcd.change_string(*idc, &t).unwrap();
                }
                VCDValue::Composite(_) => {
                    panic!("Composite data received for singleton type");
                }
            }
            last[*slot] = Some(val);
        }
        VCDIDCode::Composite(idcs) => match val {
            VCDValue::Composite(vals) => {
                assert_eq!(
                    idcs.len(),
                    vals.len(),
                    "Mismatch in values versus type information"
                );
                for (idc, val) in idcs.iter().zip(vals) {
                    do_vcd_change(last, vcd, idc, *val, dump);
                }
            }
            _ => {
                panic!("Scalar data received for composite type");
            }
        },
    }
}

pub fn write_vcd_dump<W: Write>(vcd: VCDProbe<W>, uut: &dyn Block) -> VCDProbe<W> {
    let mut visitor = VCDDump(vcd);
    visitor
        .0
        .vcd
        .begin(vcd::SimulationCommand::Dumpvars)
        .unwrap();
    uut.accept("uut", &mut visitor);
    visitor.0.vcd.end().unwrap();
    visitor.0
}
