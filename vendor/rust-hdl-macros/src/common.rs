use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Data, Expr, Token};

pub(crate) type TS = proc_macro2::TokenStream;

pub(crate) fn get_field_types(input: &syn::DeriveInput) -> syn::Result<Vec<TS>> {
    let mut fields = vec![];
    match &input.data {
        Data::Struct(ds) => {
            for field in &ds.fields {
                if field.ident.is_none() {
                    return Err(syn::Error::new(
                        field.span(),
                        "Unnamed fields are not supported",
                    ));
                }
                let name = &field.ident.as_ref();
                let qname = quote!(#name);
                let qname_string = qname.to_string();
                if ["config", "wire", "reg", "module", "edge", "disable"]
                    .contains(&qname_string.as_str())
                {
                    return Err(syn::Error::new(
                        field.span(),
                        "Cannot use an HDL keyword here",
                    ));
                }
                if !qname_string.starts_with('_') {
                    let ty = &field.ty;
                    fields.push(quote!(#ty));
                }
            }
        }
        _ => {
            return Err(syn::Error::new(
                input.span(),
                "Logic Derive can only be applied to structs",
            ));
        }
    }
    Ok(fields)
}

pub(crate) fn get_field_names(input: &syn::DeriveInput) -> syn::Result<Vec<TS>> {
    let mut fields = vec![];
    match &input.data {
        Data::Struct(ds) => {
            for field in &ds.fields {
                if field.ident.is_none() {
                    return Err(syn::Error::new(
                        field.span(),
                        "Unnamed fields are not supported",
                    ));
                }
                let name = &field.ident.as_ref();
                let qname = quote!(#name);
                let qname_string = qname.to_string();
                if ["config", "wire", "reg", "module", "edge", "disable"]
                    .contains(&qname_string.as_str())
                {
                    return Err(syn::Error::new(
                        field.span(),
                        "Cannot use an HDL keyword here",
                    ));
                }
                if !qname_string.starts_with('_') {
                    fields.push(qname);
                }
            }
        }
        _ => {
            return Err(syn::Error::new(
                input.span(),
                "Logic Derive can only be applied to structs",
            ));
        }
    }
    Ok(fields)
}

pub fn get_connect_all(fields: Vec<TS>) -> syn::Result<TS> {
    Ok(quote! {
        fn connect_all(&mut self) {
            self.connect();
            #(self.#fields.connect_all();)*
        }
    })
}

pub fn get_update_all(fields: Vec<TS>) -> syn::Result<TS> {
    Ok(quote! {
        fn update_all(&mut self) {
            self.update();
            #(self.#fields.update_all();)*
        }
    })
}

/// The activity-driven delta pass (pws patch, PATCH.md): a block whose subtree did not change
/// when it last ran and whose own signals have nothing pending (only its parent writes them)
/// is skipped whole; otherwise its `update` runs only when one of the signals it can read
/// changed (its own, and its children's ports), and its fields follow.
pub fn get_update_all_tracked(fields: Vec<TS>) -> syn::Result<TS> {
    Ok(quote! {
        fn update_all_tracked(&mut self, activity: &mut block::Activity) -> bool {
            let me = activity.enter();
            if !activity.is_dirty(me) #(&& !self.#fields.signal_pending())* {
                activity.skip(me);
                return false;
            }
            if !activity.seen(me)
                #(|| self.#fields.ports_changed())*
                || (self.clocked_update() && (false #(|| self.#fields.clock_changed())*))
            {
                self.update();
            }
            let mut changed = false;
            #(changed |= self.#fields.update_all_tracked(activity);)*
            activity.leave(me, changed);
            changed
        }

        fn ports_changed(&self) -> bool {
            false #(|| self.#fields.output_changed())*
        }

        fn rising_edge_tracked(&mut self, activity: &mut block::Activity) -> bool {
            let me = activity.enter();
            let mut changed = false;
            #(changed |= self.#fields.raise_clock();)*
            if changed && self.clocked_update() {
                self.update();
            }
            #(changed |= self.#fields.rising_edge_tracked(activity);)*
            activity.leave(me, changed);
            changed
        }
    })
}

/// An interface's signals seen from the block that holds it, for the activity-driven passes
/// (pws patch, PATCH.md): pending, changed, changed outputs and clocks, as its signals say,
/// and a clock in it rises with its holder's.
pub fn get_interface_activity(fields: Vec<TS>) -> syn::Result<TS> {
    Ok(quote! {
        fn signal_pending(&self) -> bool {
            false #(|| self.#fields.signal_pending())*
        }
        fn signal_changed(&self) -> bool {
            false #(|| self.#fields.signal_changed())*
        }
        fn output_changed(&self) -> bool {
            false #(|| self.#fields.output_changed())*
        }
        fn clock_changed(&self) -> bool {
            false #(|| self.#fields.clock_changed())*
        }
        fn raise_clock(&mut self) -> bool {
            let mut rose = false;
            #(rose |= self.#fields.raise_clock();)*
            rose
        }
    })
}

/// [`Block::drive_clocks`] over every field (pws patch, PATCH.md).
pub fn get_drive_clocks(fields: Vec<TS>) -> syn::Result<TS> {
    Ok(quote! {
        fn drive_clocks(&mut self, edge: block::ClockEdge) {
            #(self.#fields.drive_clocks(edge);)*
        }
    })
}

pub fn get_has_changed(fields: Vec<TS>) -> syn::Result<TS> {
    if fields.is_empty() {
        Ok(quote! {
            fn has_changed(&self) -> bool {
                false
            }
        })
    } else {
        Ok(quote! {
            fn has_changed(&self) -> bool {
                #(self.#fields.has_changed())||*
            }
        })
    }
}

pub fn squash(x: &str) -> String {
    x.to_string().replace([' ', '\n'], "")
}

/// The code that builds a signal's name at `hdl()` time (pws patch, PATCH.md): a constant
/// (`src_i[k * SOURCES + n]`) or a configuration field (`busy[j * self._per_slot + k]`) in an
/// index is replaced by its value, so the Verilog generator can evaluate the index with the
/// loop variables alone. Constants are the upper-case identifiers inside brackets,
/// configuration fields the ones that start with `_` (rust-hdl's non-signal fields).
pub fn signal_name(expanded: &str) -> TS {
    // A configuration field read as a value (`pick == m * self._per_slot + k`) is a number in
    // the Verilog, as a loop variable is.
    if expanded.len() > 1
        && expanded.starts_with('_')
        && expanded.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        let ident = syn::Ident::new(expanded, proc_macro2::Span::call_site());
        return quote!(((self.#ident) as usize).to_string());
    }
    let mut depth = 0usize;
    let mut words: Vec<(String, TS)> = Vec::new();
    let mut word = String::new();
    let mut flush = |word: &mut String, depth: usize, words: &mut Vec<(String, TS)>| {
        if depth > 0 && !words.iter().any(|(w, _)| w == word.as_str()) {
            let upper = word.starts_with(|c: char| c.is_ascii_uppercase())
                && word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            if upper {
                let ident = syn::Ident::new(word, proc_macro2::Span::call_site());
                words.push((word.clone(), quote!(#ident)));
            } else if word.starts_with('_') && word.len() > 1 {
                let ident = syn::Ident::new(word, proc_macro2::Span::call_site());
                words.push((word.clone(), quote!(self.#ident)));
            }
        }
        word.clear();
    };
    for c in expanded.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        flush(&mut word, depth, &mut words);
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    flush(&mut word, depth, &mut words);
    if words.is_empty() {
        return quote!(#expanded.to_string());
    }
    let (names, values): (Vec<String>, Vec<TS>) = words.into_iter().unzip();
    quote!(ast::substitute_identifiers(#expanded, &[#((#names, (#values) as usize)),*]))
}

pub fn fixup_ident(x: String) -> String {
    // All whitespace, not only spaces: a long token stream prints across lines (pws patch).
    let y = x
        .replace(char::is_whitespace, "")
        .replace("self.", "")
        .replace('.', "$")
        .replace("::", "$")
        .replace("&mut", "");
    assert_ne!(y, "config");
    assert_ne!(y, "input");
    assert_ne!(y, "output");
    y
}

// The dff_setup macro uses clock, dfflist arguments
#[derive(Debug)]
pub struct DFFSetupArgs {
    pub me: Expr,
    pub clock: Expr,
    pub dffs: Vec<Expr>,
}

impl Parse for DFFSetupArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let clock: Expr;
        let mut dffs = Vec::new();

        let me: Expr = input.parse()?;
        input.parse::<Token![,]>()?;
        clock = input.parse()?;
        input.parse::<Token![,]>()?;
        while !input.is_empty() {
            let dff_name: Expr = input.parse()?;
            dffs.push(dff_name);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(DFFSetupArgs { me, clock, dffs })
    }
}
