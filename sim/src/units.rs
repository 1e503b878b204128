//! [`Clocked`](crate::Clocked) for the stand-alone `pws-hdl` units, so tests, proptests and
//! `pws unit ...` can step them with the [`Driver`](crate::Driver). The trait lives here and the
//! designs in `pws-hdl`, so the orphan rule puts the implementations in this crate.

crate::impl_clocked!(
    pws_hdl::swizzle::SwizzleUnit,
    pws_hdl::reconvergence::PdomStack,
    pws_hdl::reconvergence::DualPathStack,
    pws_hdl::split_merge::SplitMergeUnit,
);
crate::impl_clocked!(pws_hdl::simd::VectorUnit);
