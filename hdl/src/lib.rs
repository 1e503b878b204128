//! rust-hdl RTL of the PWS compute-unit slice, parameterised by one typed configuration.
