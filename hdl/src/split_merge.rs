//! (being written in this session)
