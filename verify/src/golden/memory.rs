//! Global memory of the golden model: the dispatch packet and the kernarg segment (read-only)
//! and the launch's buffers
//! at the addresses of the launch manifest's layout. Every other address is unmapped, so an
//! out-of-bounds access is an error rather than a silent read of another buffer.

use pws_isa::abi::LaunchAbi;
use pws_isa::manifest::{Manifest, Region};

/// Why a memory access failed (the executor adds the instruction and lane).
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
    #[error("LDS address {addr:#x} is out of range: the limit is {limit:#x} = min(M0 = {m0:#x}, the workgroup's allocation of {allocation} bytes)")]
    LdsOutOfRange {
        addr: u32,
        limit: u32,
        allocation: u32,
        m0: u32,
    },
    #[error("LDS address {addr:#x} is not aligned to the {bytes}-byte access")]
    LdsMisaligned { addr: u32, bytes: u32 },
}

/// One mapped region and its contents.
#[derive(Clone, Debug)]
struct Segment {
    region: Region,
    words: Vec<u32>,
    writable: bool,
    /// One of the manifest's buffers (the private segment is writable too).
    buffer: bool,
}

/// The global memory of one launch.
#[derive(Clone, Debug)]
pub struct GlobalMemory {
    /// Sorted by base address; regions never overlap.
    segments: Vec<Segment>,
}

impl GlobalMemory {
    /// Memory at launch of a kernel with launch ABI `abi`: the dispatch packet, the kernarg
    /// contents and every buffer's initial data.
    pub fn new(manifest: &Manifest, abi: &LaunchAbi) -> GlobalMemory {
        let image = manifest.memory_image(abi);
        let mut segments = vec![
            Segment {
                region: image.dispatch_packet,
                words: image.dispatch_packet_words,
                writable: false,
                buffer: false,
            },
            Segment {
                region: image.kernarg,
                words: image.kernarg_words,
                writable: false,
                buffer: false,
            },
        ];
        segments.extend(
            image
                .buffers
                .into_iter()
                .zip(&manifest.buffers)
                .map(|(region, b)| Segment {
                    region,
                    words: b.init.clone(),
                    writable: true,
                    buffer: true,
                }),
        );
        segments.extend(image.rodata.map(|(region, words)| Segment {
            region,
            words,
            writable: false,
            buffer: false,
        }));
        segments.extend(image.scratch.map(|region| Segment {
            words: vec![0; (region.bytes / 4) as usize],
            region,
            writable: true,
            buffer: false,
        }));
        segments.sort_by_key(|s| s.region.base);
        GlobalMemory { segments }
    }

    /// Locates the segment and word index of the dword at `addr`.
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

    /// Reads the dword at `addr`.
    pub fn read(&self, addr: u64) -> Result<u32, MemFault> {
        let (seg, word) = self.locate(addr)?;
        Ok(self.segments[seg].words[word])
    }

    /// Writes the dword at `addr`.
    pub fn write(&mut self, addr: u64, value: u32) -> Result<(), MemFault> {
        let (seg, word) = self.locate_writable(addr)?;
        self.segments[seg].words[word] = value;
        Ok(())
    }

    /// [`Self::locate`] for a write: the dword must lie in a writable segment.
    fn locate_writable(&self, addr: u64) -> Result<(usize, usize), MemFault> {
        let (seg, word) = self.locate(addr)?;
        if !self.segments[seg].writable {
            return Err(MemFault::ReadOnly {
                addr,
                region: self.segments[seg].region.name.clone(),
            });
        }
        Ok((seg, word))
    }

    /// Read-modify-write of the dword at `addr`: writes `op(old)` and returns `old` (the
    /// FLAT atomics; the caller runs the lanes in order, so this is the whole atomicity).
    pub fn atomic(&mut self, addr: u64, op: impl FnOnce(u32) -> u32) -> Result<u32, MemFault> {
        let old = self.read(addr)?;
        self.write(addr, op(old))?;
        Ok(old)
    }

    /// Reads the `bytes` (1, 2 or 4) bytes at `addr`, zero-extended (memory is little-endian).
    /// An address that is not a multiple of `bytes` reads byte by byte: gfx8 under the HSA
    /// runtime runs in unaligned mode, and LLVM merges adjacent byte loads into such accesses.
    pub fn read_sized(&self, addr: u64, bytes: u32) -> Result<u32, MemFault> {
        if addr % u64::from(bytes) != 0 {
            return (0..bytes).try_fold(0, |v, k| {
                let byte = self.read_sized(addr.wrapping_add(u64::from(k)), 1)?;
                Ok(v | byte << (8 * k))
            });
        }
        let word = self.read(addr & !3)?;
        let shift = 8 * (addr & 3) as u32;
        Ok(match bytes {
            4 => word,
            n => (word >> shift) & ((1 << (8 * n)) - 1),
        })
    }

    /// Writes the low `bytes` (1, 2 or 4) bytes of `value` at `addr`; the other bytes of the
    /// dword keep their values. An unaligned write goes byte by byte, once every byte is known
    /// to be writable (a fault writes nothing).
    pub fn write_sized(&mut self, addr: u64, bytes: u32, value: u32) -> Result<(), MemFault> {
        if addr % u64::from(bytes) != 0 {
            let at = |k: u32| addr.wrapping_add(u64::from(k));
            for k in 0..bytes {
                self.locate_writable(at(k) & !3)?;
            }
            for k in 0..bytes {
                self.write_sized(at(k), 1, value >> (8 * k))?;
            }
            return Ok(());
        }
        if bytes == 4 {
            return self.write(addr, value);
        }
        let base = addr & !3;
        let old = self.read(base)?;
        let shift = 8 * (addr & 3) as u32;
        let mask = ((1u32 << (8 * bytes)) - 1) << shift;
        self.write(base, (old & !mask) | ((value << shift) & mask))
    }

    /// Final contents of every buffer, in manifest order (the layout places them in it).
    pub fn into_buffers(self) -> Vec<(Region, Vec<u32>)> {
        self.segments
            .into_iter()
            .filter(|s| s.buffer)
            .map(|s| (s.region, s.words))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pws_isa::manifest::layout;

    fn memory() -> GlobalMemory {
        let m = Manifest::parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [\"a\", 5]\n\
             [[buffer]]\nname = \"a\"\ntype = \"i32\"\ndata = [1, 2]\n\
             [[buffer]]\nname = \"b\"\ntype = \"u32\"\nlen = 1024\n",
            "l.toml",
        )
        .unwrap();
        GlobalMemory::new(&m, &LaunchAbi::legacy())
    }

    #[test]
    fn reads_kernarg_and_buffers() {
        let mut mem = memory();
        assert_eq!(
            mem.read(layout::KERNARG_BASE),
            Ok(layout::BUFFER_BASE as u32)
        );
        assert_eq!(mem.read(layout::KERNARG_BASE + 8), Ok(5));
        assert_eq!(mem.read(layout::BUFFER_BASE + 4), Ok(2));
        assert_eq!(
            mem.read(layout::DISPATCH_PACKET_BASE + 4),
            Ok(1 | 1 << 16),
            "workgroup size x and y"
        );
        mem.write(layout::BUFFER_BASE, 7).unwrap();
        let b_base = layout::BUFFER_BASE + 0x2000;
        mem.write(b_base + 4092, 9).unwrap();
        let bufs = mem.into_buffers();
        assert_eq!(bufs[0].1, vec![7, 2]);
        assert_eq!(bufs[1].0.base, b_base);
        assert_eq!(bufs[1].1[1023], 9);
    }

    #[test]
    fn bytes_and_halves_are_little_endian_parts_of_a_dword() {
        let mut mem = memory();
        let a = layout::BUFFER_BASE;
        mem.write(a, 0x8765_4321).unwrap();
        assert_eq!(mem.read_sized(a + 1, 1), Ok(0x43));
        assert_eq!(mem.read_sized(a + 2, 2), Ok(0x8765));
        mem.write_sized(a + 3, 1, 0x1FF).unwrap();
        mem.write_sized(a, 2, 0xABCD).unwrap();
        assert_eq!(mem.read(a), Ok(0xFF65_ABCD));
        assert!(mem.write_sized(layout::KERNARG_BASE + 1, 1, 0).is_err());
    }

    #[test]
    fn unaligned_accesses_move_bytes_across_dwords() {
        let mut mem = memory();
        let a = layout::BUFFER_BASE;
        mem.write(a, 0x8765_4321).unwrap();
        mem.write(a + 4, 0xFEDC_BA98).unwrap();
        assert_eq!(mem.read_sized(a + 1, 2), Ok(0x6543));
        assert_eq!(mem.read_sized(a + 3, 2), Ok(0x9887));
        assert_eq!(mem.read_sized(a + 2, 4), Ok(0xBA98_8765));
        mem.write_sized(a + 3, 4, 0x1122_3344).unwrap();
        assert_eq!(
            (mem.read(a), mem.read(a + 4)),
            (Ok(0x4465_4321), Ok(0xFE11_2233))
        );
        // A write reaching past the buffer (two dwords) writes nothing.
        assert_eq!(
            mem.write_sized(a + 6, 4, 0),
            Err(MemFault::Unmapped { addr: a + 8 })
        );
        assert_eq!(mem.read(a + 4), Ok(0xFE11_2233));
        assert_eq!(
            mem.read_sized(u64::MAX, 2),
            Err(MemFault::Unmapped {
                addr: u64::MAX & !3
            })
        );
    }

    #[test]
    fn faults() {
        let mut mem = memory();
        let past_a = layout::BUFFER_BASE + 8;
        assert_eq!(mem.read(past_a), Err(MemFault::Unmapped { addr: past_a }));
        assert_eq!(mem.read(0), Err(MemFault::Unmapped { addr: 0 }));
        assert_eq!(
            mem.read(u64::MAX - 3),
            Err(MemFault::Unmapped { addr: u64::MAX - 3 })
        );
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
        let past_b = layout::BUFFER_BASE + 0x2000 + 4096;
        assert_eq!(
            mem.write(past_b, 1),
            Err(MemFault::Unmapped { addr: past_b })
        );
    }
}
