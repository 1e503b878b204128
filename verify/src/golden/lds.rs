//! The local data share of one workgroup in the golden model: the kernel's group segment
//! (`.amdhsa_group_segment_fixed_size` bytes, zero at the workgroup's start), addressed in bytes
//! from 0. GCN3 limits every DS access by M0: an access is in range when all of its bytes lie
//! below `min(M0, allocation)`; anything else is a reported fault (the hardware would drop the
//! write or return 0, which hides the bug we want to show). Written from the GCN3 manual's DS
//! chapter, independently of the RTL's LDS.

use super::memory::MemFault;

/// The most LDS a compute unit has (GCN3: 64 KiB), so the most one workgroup may allocate.
pub const LDS_BYTES: u32 = 64 * 1024;

/// One workgroup's LDS allocation.
#[derive(Clone, Debug)]
pub struct Lds {
    bytes: Vec<u8>,
}

impl Lds {
    /// A zeroed allocation of `size` bytes (at most [`LDS_BYTES`]; the launch checks that).
    pub fn new(size: u32) -> Lds {
        Lds {
            bytes: vec![0; size as usize],
        }
    }

    /// The allocation's size in bytes.
    pub fn size(&self) -> u32 {
        self.bytes.len() as u32
    }

    /// Checks an access of `bytes` bytes at `addr` against `min(m0, allocation)` and its
    /// alignment (natural up to a dword, a dword beyond: wider accesses move dwords); returns
    /// the byte index.
    fn check(&self, addr: u32, bytes: u32, m0: u32) -> Result<usize, MemFault> {
        let limit = m0.min(self.size());
        if addr % bytes.min(4) != 0 {
            return Err(MemFault::LdsMisaligned { addr, bytes });
        }
        if u64::from(addr) + u64::from(bytes) > u64::from(limit) {
            return Err(MemFault::LdsOutOfRange {
                addr,
                limit,
                allocation: self.size(),
                m0,
            });
        }
        Ok(addr as usize)
    }

    /// Reads `bytes` (1, 2 or 4) bytes at `addr`, zero-extended (little-endian).
    pub fn read(&self, addr: u32, bytes: u32, m0: u32) -> Result<u32, MemFault> {
        let a = self.check(addr, bytes, m0)?;
        Ok((0..bytes as usize).fold(0, |v, i| v | (self.bytes[a + i] as u32) << (8 * i)))
    }

    /// Writes the low `bytes` (1, 2 or 4) bytes of `value` at `addr`.
    pub fn write(&mut self, addr: u32, bytes: u32, value: u32, m0: u32) -> Result<(), MemFault> {
        let a = self.check(addr, bytes, m0)?;
        for i in 0..bytes as usize {
            self.bytes[a + i] = (value >> (8 * i)) as u8;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_endian_sub_dword_access() {
        let mut lds = Lds::new(16);
        lds.write(4, 4, 0x8765_4321, u32::MAX).unwrap();
        assert_eq!(lds.read(5, 1, u32::MAX), Ok(0x43));
        assert_eq!(lds.read(6, 2, u32::MAX), Ok(0x8765));
        lds.write(7, 1, 0x1ff, u32::MAX).unwrap();
        assert_eq!(lds.read(4, 4, u32::MAX), Ok(0xff65_4321));
    }

    #[test]
    fn limit_is_the_smaller_of_m0_and_the_allocation() {
        let mut lds = Lds::new(64);
        assert!(lds.write(60, 4, 1, u32::MAX).is_ok());
        assert_eq!(
            lds.read(64, 4, u32::MAX),
            Err(MemFault::LdsOutOfRange {
                addr: 64,
                limit: 64,
                allocation: 64,
                m0: u32::MAX
            })
        );
        assert!(lds.read(28, 4, 32).is_ok());
        assert!(matches!(
            lds.read(32, 4, 32),
            Err(MemFault::LdsOutOfRange { limit: 32, .. })
        ));
        assert!(matches!(
            lds.read(31, 2, 32),
            Err(MemFault::LdsMisaligned { .. })
        ));
        assert!(matches!(
            lds.read(u32::MAX - 1, 1, u32::MAX),
            Err(MemFault::LdsOutOfRange { .. })
        ));
        assert!(Lds::new(0).read(0, 1, u32::MAX).is_err());
    }
}
