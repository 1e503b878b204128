//! The data memory the compute unit reaches through its memory port: the launch's dispatch
//! packet and kernarg segment (read-only) and buffers at the addresses of
//! `pws_isa::manifest::layout`, every other address unmapped, as the golden model lays memory
//! out (so final buffers compare word for word); and the fixed-latency, in-order delay line that
//! answers the port.
//!
//! A request is performed when the rising edge accepts it (loads read, stores write then);
//! its response is presented `latency` cycles later. Performing accesses in acceptance order
//! keeps every context's own accesses in program order, which is all race-free kernels need.
//! An atomic request (`mem_rmw_o`) read-modify-writes each active lane's dword in ascending
//! lane order, one lane after the other, and answers with the old values: lanes on one address
//! see each other's results, as the golden model's lane order defines.

use std::collections::VecDeque;

use pws_isa::abi::LaunchAbi;
use pws_isa::manifest::{ElemType, Manifest, Region};

/// Words in one request: one 16-lane pass.
pub const PORT_LANES: usize = 16;

/// Why an access failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemFault {
    #[error(
        "address {addr:#x} is outside the dispatch packet, the kernarg segment, every buffer and the private segment"
    )]
    Unmapped { addr: u64 },
    #[error("address {addr:#x} is not aligned to the access size")]
    Misaligned { addr: u64 },
    #[error("address {addr:#x} is in the read-only {region} segment")]
    ReadOnly { addr: u64, region: String },
    /// A DS access reached past `min(M0, allocation)` (the compute unit's LDS check).
    #[error("LDS address {addr:#x} is outside the limit {limit:#x} = min(M0 = {m0:#x}, the workgroup's allocation of {allocation} bytes)")]
    LdsOutOfRange {
        addr: u32,
        limit: u32,
        allocation: u32,
        m0: u32,
    },
    #[error("LDS address {addr:#x} is not aligned to the {bytes}-byte access")]
    LdsMisaligned { addr: u32, bytes: u32 },
}

/// One mapped region and its words.
#[derive(Clone, Debug)]
struct Segment {
    region: Region,
    /// A buffer's element type and length (`None`: not one of the manifest's buffers).
    elems: Option<(ElemType, usize)>,
    words: Vec<u32>,
    /// The buffers and the private segment.
    writable: bool,
}

/// Final contents of one buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferWords {
    pub name: String,
    pub ty: ElemType,
    /// Elements of `ty` the words hold.
    pub len: usize,
    pub words: Vec<u32>,
}

/// Global memory of one launch.
#[derive(Clone, Debug)]
pub struct DataMemory {
    /// Sorted by base; regions never overlap. The dispatch packet, the kernarg segment and the
    /// program's `.rodata` are read-only; the buffers and the private segment writable.
    segments: Vec<Segment>,
}

impl DataMemory {
    /// Memory at launch of a kernel with launch ABI `abi`: the dispatch packet, kernarg contents
    /// and every buffer's initial data.
    pub fn new(manifest: &Manifest, abi: &LaunchAbi) -> DataMemory {
        let image = manifest.memory_image(abi);
        let mut segments = vec![
            Segment {
                region: image.dispatch_packet,
                elems: None,
                words: image.dispatch_packet_words,
                writable: false,
            },
            Segment {
                region: image.kernarg,
                elems: None,
                words: image.kernarg_words,
                writable: false,
            },
        ];
        segments.extend(
            image
                .buffers
                .into_iter()
                .zip(&manifest.buffers)
                .map(|(region, b)| Segment {
                    region,
                    elems: Some((b.ty, b.len)),
                    words: b.init.clone(),
                    writable: true,
                }),
        );
        segments.extend(image.rodata.map(|(region, words)| Segment {
            region,
            elems: None,
            words,
            writable: false,
        }));
        segments.extend(image.scratch.map(|region| Segment {
            words: vec![0; (region.bytes / 4) as usize],
            region,
            elems: None,
            writable: true,
        }));
        segments.sort_by_key(|s| s.region.base);
        DataMemory { segments }
    }

    fn locate(&self, addr: u64) -> Result<(usize, usize), MemFault> {
        if addr % 4 != 0 {
            return Err(MemFault::Misaligned { addr });
        }
        let i = self
            .segments
            .partition_point(|s| s.region.base <= addr)
            .checked_sub(1)
            .ok_or(MemFault::Unmapped { addr })?;
        let seg = &self.segments[i];
        if addr >= seg.region.end() {
            return Err(MemFault::Unmapped { addr });
        }
        Ok((i, ((addr - seg.region.base) / 4) as usize))
    }

    /// The dword at `addr`.
    pub fn read(&self, addr: u64) -> Result<u32, MemFault> {
        let (s, w) = self.locate(addr)?;
        Ok(self.segments[s].words[w])
    }

    /// Writes the dword at `addr`.
    pub fn write(&mut self, addr: u64, value: u32) -> Result<(), MemFault> {
        let (s, w) = self.locate_writable(addr)?;
        self.segments[s].words[w] = value;
        Ok(())
    }

    /// [`Self::locate`] for a write: the dword must lie in a buffer or the private segment.
    fn locate_writable(&self, addr: u64) -> Result<(usize, usize), MemFault> {
        let (s, w) = self.locate(addr)?;
        if !self.segments[s].writable {
            return Err(MemFault::ReadOnly {
                addr,
                region: self.segments[s].region.name.clone(),
            });
        }
        Ok((s, w))
    }

    /// The access of `size` (a dword, a byte or a half) at `addr`: a read returns the value
    /// zero- or (`signed`) sign-extended; a write of `value`'s low bytes leaves the dword's
    /// other bytes alone. An unaligned access moves its bytes one by one (gfx8's unaligned
    /// mode, which the HSA runtime sets and LLVM's byte-load merging relies on); a write
    /// checks every byte's dword first, so a fault writes nothing.
    pub fn access(
        &mut self,
        addr: u64,
        size: AccessSize,
        signed: bool,
        write: Option<u32>,
    ) -> Result<u32, MemFault> {
        let bytes = match size {
            AccessSize::Dword => 4,
            AccessSize::Byte => 1,
            AccessSize::Half => 2,
        };
        if addr % bytes != 0 {
            return self.unaligned(addr, bytes, signed, write);
        }
        let bits = match size {
            AccessSize::Dword => {
                return match write {
                    Some(v) => self.write(addr, v).map(|()| 0),
                    None => self.read(addr),
                }
            }
            AccessSize::Byte => 8,
            AccessSize::Half => 16,
        };
        if addr % (bits / 8) != 0 {
            return Err(MemFault::Misaligned { addr });
        }
        let word = self.read(addr & !3)?;
        let shift = 8 * (addr & 3) as u32;
        let mask = ((1u32 << bits) - 1) << shift;
        match write {
            Some(v) => self
                .write(addr & !3, (word & !mask) | ((v << shift) & mask))
                .map(|()| 0),
            None => {
                let v = (word & mask) >> shift;
                Ok(if signed {
                    (((v << (32 - bits)) as i32) >> (32 - bits)) as u32
                } else {
                    v
                })
            }
        }
    }

    fn unaligned(
        &mut self,
        addr: u64,
        bytes: u64,
        signed: bool,
        write: Option<u32>,
    ) -> Result<u32, MemFault> {
        let at = |k: u64| addr.wrapping_add(k);
        match write {
            Some(v) => {
                for k in 0..bytes {
                    self.locate_writable(at(k) & !3)?;
                }
                for k in 0..bytes {
                    self.access(at(k), AccessSize::Byte, false, Some(v >> (8 * k)))?;
                }
                Ok(0)
            }
            None => {
                let mut v = 0u32;
                for k in 0..bytes {
                    v |= self.access(at(k), AccessSize::Byte, false, None)? << (8 * k);
                }
                let bits = 8 * bytes as u32;
                Ok(if signed && bits < 32 {
                    (((v << (32 - bits)) as i32) >> (32 - bits)) as u32
                } else {
                    v
                })
            }
        }
    }

    /// Final contents of every buffer, in manifest order (the layout places them in it).
    pub fn into_buffers(self) -> Vec<BufferWords> {
        self.segments
            .into_iter()
            .filter_map(|s| {
                let (ty, len) = s.elems?;
                Some(BufferWords {
                    ty,
                    len,
                    name: s.region.name,
                    words: s.words,
                })
            })
            .collect()
    }
}

/// The size of every lane's access in a request (`mem_size_o`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessSize {
    Dword,
    Byte,
    Half,
}

impl AccessSize {
    /// The port's 2-bit size code.
    pub fn from_code(code: u64) -> AccessSize {
        match code {
            1 => AccessSize::Byte,
            2 => AccessSize::Half,
            _ => AccessSize::Dword,
        }
    }
}

/// A FLAT atomic's read-modify-write as the port codes it (`pws_hdl::cu::lsu::rmw`): the new
/// dword from the old one, the lane's data `a` and its second operand `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rmw {
    Add,
    Sub,
    Rsub,
    MinI,
    MinU,
    MaxI,
    MaxU,
    And,
    Or,
    Xor,
    Inc,
    Dec,
    Swap,
    /// `old == b ? a : old`.
    CmpSwap,
    Mskor,
}

impl Rmw {
    /// The op of a port code; `None` for 0 (a plain load or store).
    pub fn from_code(code: u64) -> Option<Rmw> {
        use pws_hdl::cu::lsu::rmw;
        Some(match code {
            rmw::ADD => Rmw::Add,
            rmw::SUB => Rmw::Sub,
            rmw::RSUB => Rmw::Rsub,
            rmw::SMIN => Rmw::MinI,
            rmw::UMIN => Rmw::MinU,
            rmw::SMAX => Rmw::MaxI,
            rmw::UMAX => Rmw::MaxU,
            rmw::AND => Rmw::And,
            rmw::OR => Rmw::Or,
            rmw::XOR => Rmw::Xor,
            rmw::INC => Rmw::Inc,
            rmw::DEC => Rmw::Dec,
            rmw::SWAP => Rmw::Swap,
            rmw::CMPSWAP => Rmw::CmpSwap,
            rmw::MSKOR => Rmw::Mskor,
            _ => return None,
        })
    }

    /// The dword the memory holds after the op.
    pub fn apply(self, old: u32, a: u32, b: u32) -> u32 {
        match self {
            Rmw::Add => old.wrapping_add(a),
            Rmw::Sub => old.wrapping_sub(a),
            Rmw::Rsub => a.wrapping_sub(old),
            Rmw::MinI => (old as i32).min(a as i32) as u32,
            Rmw::MinU => old.min(a),
            Rmw::MaxI => (old as i32).max(a as i32) as u32,
            Rmw::MaxU => old.max(a),
            Rmw::And => old & a,
            Rmw::Or => old | a,
            Rmw::Xor => old ^ a,
            Rmw::Inc => {
                if old >= a {
                    0
                } else {
                    old + 1
                }
            }
            Rmw::Dec => {
                if old == 0 || old > a {
                    a
                } else {
                    old - 1
                }
            }
            Rmw::Swap => a,
            Rmw::CmpSwap => {
                if old == b {
                    a
                } else {
                    old
                }
            }
            Rmw::Mskor => (old & !a) | b,
        }
    }
}

/// A request as the port presents it in one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub write: bool,
    /// An atomic: read-modify-write every lane's dword, answer with the old values.
    pub rmw: Option<Rmw>,
    /// Each lane's access size, and whether a sub-dword load sign-extends.
    pub size: AccessSize,
    pub signed: bool,
    /// Byte addresses, one per port lane.
    pub addr: [u32; PORT_LANES],
    pub wdata: [u32; PORT_LANES],
    /// An atomic's second operand (`cmpswap`'s compare value).
    pub wdata1: [u32; PORT_LANES],
    /// Bit i: lane i takes part.
    pub lanes: u16,
}

/// A failed access: which lane of the request and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortFault {
    pub lane: usize,
    pub fault: MemFault,
}

/// The fixed-latency, in-order memory behind the port.
#[derive(Debug)]
pub struct MemoryPort {
    pub memory: DataMemory,
    latency: u64,
    /// (cycle the response is presented in, read data), oldest first.
    pending: VecDeque<(u64, [u32; PORT_LANES])>,
    /// Requests accepted so far (reads, writes).
    pub reads: u64,
    pub writes: u64,
}

impl MemoryPort {
    /// A port answering `latency` (>= 1) cycles after the accepting edge.
    pub fn new(memory: DataMemory, latency: u64) -> MemoryPort {
        MemoryPort {
            memory,
            latency: latency.max(1),
            pending: VecDeque::new(),
            reads: 0,
            writes: 0,
        }
    }

    /// Performs `req`, accepted by the rising edge that ends cycle `cycle`; its response is due
    /// `latency` cycles later. Inactive lanes are neither checked nor accessed.
    pub fn accept(&mut self, cycle: u64, req: &Request) -> Result<(), PortFault> {
        let mut data = [0; PORT_LANES];
        for lane in (0..PORT_LANES).filter(|&l| req.lanes >> l & 1 == 1) {
            let addr = u64::from(req.addr[lane]);
            let r = match req.rmw {
                Some(op) => self.memory.read(addr).and_then(|old| {
                    data[lane] = old;
                    self.memory
                        .write(addr, op.apply(old, req.wdata[lane], req.wdata1[lane]))
                }),
                None => {
                    let write = req.write.then_some(req.wdata[lane]);
                    self.memory
                        .access(addr, req.size, req.signed, write)
                        .map(|v| data[lane] = v)
                }
            };
            r.map_err(|fault| PortFault { lane, fault })?;
        }
        if req.write || req.rmw.is_some() {
            self.writes += 1;
        } else {
            self.reads += 1;
        }
        self.pending.push_back((cycle + self.latency, data));
        Ok(())
    }

    /// The response presented in cycle `cycle` (sampled by the edge that ends it), if any.
    pub fn response(&mut self, cycle: u64) -> Option<[u32; PORT_LANES]> {
        match self.pending.front() {
            Some(&(due, data)) if due == cycle => {
                self.pending.pop_front();
                Some(data)
            }
            _ => None,
        }
    }

    /// Requests accepted and not yet answered.
    pub fn outstanding(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pws_isa::manifest::layout;

    fn manifest() -> Manifest {
        Manifest::parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [\"a\", 5]\n\
             [[buffer]]\nname = \"a\"\ntype = \"i32\"\ndata = [1, 2]\n\
             [[buffer]]\nname = \"b\"\ntype = \"u32\"\nlen = 1024\n",
            "l.toml",
        )
        .unwrap()
    }

    #[test]
    fn maps_kernarg_and_buffers_like_the_manifest_layout() {
        let mut mem = DataMemory::new(&manifest(), &LaunchAbi::legacy());
        assert_eq!(
            mem.read(layout::KERNARG_BASE),
            Ok(layout::BUFFER_BASE as u32)
        );
        assert_eq!(mem.read(layout::KERNARG_BASE + 8), Ok(5));
        assert_eq!(
            mem.read(layout::DISPATCH_PACKET_BASE + 12),
            Ok(1),
            "grid size x"
        );
        assert!(mem.write(layout::DISPATCH_PACKET_BASE, 0).is_err());
        assert_eq!(mem.read(layout::BUFFER_BASE + 4), Ok(2));
        let b = layout::BUFFER_BASE + 0x2000;
        mem.write(b + 4092, 9).unwrap();
        let bufs = mem.into_buffers();
        assert_eq!(bufs.len(), 2);
        assert_eq!((bufs[0].name.as_str(), bufs[0].ty), ("a", ElemType::I32));
        assert_eq!(bufs[1].words[1023], 9);
    }

    #[test]
    fn bytes_and_halves_are_parts_of_little_endian_dwords() {
        let mut mem = DataMemory::new(&manifest(), &LaunchAbi::legacy());
        let a = layout::BUFFER_BASE;
        mem.write(a, 0x8765_4321).unwrap();
        assert_eq!(mem.access(a + 3, AccessSize::Byte, false, None), Ok(0x87));
        assert_eq!(
            mem.access(a + 3, AccessSize::Byte, true, None),
            Ok(0xFFFF_FF87)
        );
        assert_eq!(
            mem.access(a + 2, AccessSize::Half, true, None),
            Ok(0xFFFF_8765)
        );
        assert_eq!(mem.access(a, AccessSize::Half, true, None), Ok(0x4321));
        mem.access(a + 1, AccessSize::Byte, false, Some(0xAB))
            .unwrap();
        mem.access(a + 2, AccessSize::Half, false, Some(0x1_2345))
            .unwrap();
        assert_eq!(mem.read(a), Ok(0x2345_AB21));
    }

    #[test]
    fn unaligned_accesses_move_bytes_across_dwords() {
        let mut mem = DataMemory::new(&manifest(), &LaunchAbi::legacy());
        let a = layout::BUFFER_BASE;
        mem.write(a, 0x8765_4321).unwrap();
        mem.write(a + 4, 0xFEDC_BA98).unwrap();
        assert_eq!(
            mem.access(a + 3, AccessSize::Half, true, None),
            Ok(0xFFFF_9887)
        );
        assert_eq!(mem.access(a + 1, AccessSize::Half, false, None), Ok(0x6543));
        assert_eq!(
            mem.access(a + 2, AccessSize::Dword, false, None),
            Ok(0xBA98_8765)
        );
        mem.access(a + 3, AccessSize::Dword, false, Some(0x1122_3344))
            .unwrap();
        assert_eq!(
            (mem.read(a), mem.read(a + 4)),
            (Ok(0x4465_4321), Ok(0xFE11_2233))
        );
    }

    #[test]
    fn faults_name_the_address() {
        let mut mem = DataMemory::new(&manifest(), &LaunchAbi::legacy());
        let past = layout::BUFFER_BASE + 8;
        assert_eq!(mem.read(past), Err(MemFault::Unmapped { addr: past }));
        assert_eq!(mem.read(0), Err(MemFault::Unmapped { addr: 0 }));
        assert_eq!(
            mem.read(layout::BUFFER_BASE + 2),
            Err(MemFault::Misaligned {
                addr: layout::BUFFER_BASE + 2
            })
        );
        assert!(matches!(
            mem.write(layout::KERNARG_BASE, 1),
            Err(MemFault::ReadOnly { .. })
        ));
    }

    #[test]
    fn port_answers_in_order_exactly_latency_cycles_later() {
        let mut port = MemoryPort::new(DataMemory::new(&manifest(), &LaunchAbi::legacy()), 3);
        let base = layout::BUFFER_BASE as u32;
        let mut store = Request {
            write: true,
            size: AccessSize::Dword,
            signed: false,
            addr: [0; PORT_LANES],
            wdata: [0; PORT_LANES],
            wdata1: [0; PORT_LANES],
            rmw: None,
            lanes: 0b11,
        };
        store.addr[0] = base;
        store.addr[1] = base + 4;
        store.wdata[0] = 40;
        store.wdata[1] = 41;
        port.accept(10, &store).unwrap();
        let mut load = Request {
            write: false,
            lanes: 0b10,
            ..store.clone()
        };
        load.addr[0] = 0;
        port.accept(11, &load).unwrap();
        assert_eq!(port.response(12), None);
        assert_eq!(port.response(13), Some([0; PORT_LANES]));
        let data = port.response(14).unwrap();
        assert_eq!((data[0], data[1]), (0, 41));
        assert_eq!(port.outstanding(), 0);
        assert_eq!((port.reads, port.writes), (1, 1));
    }

    #[test]
    fn atomics_apply_in_lane_order_and_return_the_old_values() {
        let mut port = MemoryPort::new(DataMemory::new(&manifest(), &LaunchAbi::legacy()), 1);
        let base = layout::BUFFER_BASE as u32;
        let mut req = Request {
            write: false,
            rmw: Some(Rmw::Add),
            size: AccessSize::Dword,
            signed: false,
            addr: [base; PORT_LANES],
            wdata: [0; PORT_LANES],
            wdata1: [0; PORT_LANES],
            lanes: 0b1011,
        };
        req.wdata[..4].copy_from_slice(&[10, 20, 30, 40]);
        req.addr[3] = base + 4;
        port.accept(0, &req).unwrap();
        let old = port.response(1).unwrap();
        // a[0] = 1 at launch: lane 0 sees 1, lane 1 sees 11; lane 3 adds to a[1] = 2.
        assert_eq!(old[..4], [1, 11, 0, 2]);
        assert_eq!(port.memory.read(u64::from(base)), Ok(31));
        assert_eq!(port.memory.read(u64::from(base) + 4), Ok(42));
        req.rmw = Some(Rmw::CmpSwap);
        req.lanes = 0b11;
        req.wdata[..2].copy_from_slice(&[7, 8]);
        req.wdata1[..2].copy_from_slice(&[31, 31]);
        port.accept(1, &req).unwrap();
        assert_eq!(port.response(2).unwrap()[..2], [31, 7]);
        assert_eq!(
            port.memory.read(u64::from(base)),
            Ok(7),
            "only lane 0 matched"
        );
        assert_eq!(Rmw::Dec.apply(0, 5, 0), 5);
        assert_eq!(Rmw::Inc.apply(5, 5, 0), 0);
        assert_eq!(Rmw::MinI.apply(u32::MAX, 3, 0), u32::MAX);
        assert_eq!(Rmw::from_code(0), None);
    }

    #[test]
    fn a_faulting_lane_is_reported() {
        let mut port = MemoryPort::new(DataMemory::new(&manifest(), &LaunchAbi::legacy()), 1);
        let mut req = Request {
            write: false,
            size: AccessSize::Dword,
            signed: false,
            addr: [layout::BUFFER_BASE as u32; PORT_LANES],
            wdata: [0; PORT_LANES],
            wdata1: [0; PORT_LANES],
            rmw: None,
            lanes: 0b101,
        };
        req.addr[2] = 0x10;
        let e = port.accept(0, &req).unwrap_err();
        assert_eq!(e.lane, 2);
        assert_eq!(e.fault, MemFault::Unmapped { addr: 0x10 });
    }
}
