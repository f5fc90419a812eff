/*
 * diag_msgs.h - every diagnostic tdsl reports, as one X-macro table.
 *
 * X(ID, SEVERITY, "format")
 *   ID        stable name; tests and lang/SPEC.md refer to it
 *   SEVERITY  ERROR or WARNING (the default severity)
 *   format    printf format of the message: lower-case start, no
 *             trailing period, user names in single quotes
 *
 * Every id here has at least one test in tests/error/ (or tests/diag/).
 * Keep each section's entries together; add new ones at the end of
 * their section.
 */

/* ---- lexer ---------------------------------------------------------- */
X(UNEXPECTED_CHAR, ERROR, "unexpected character '%s'")
X(INVALID_UTF8, ERROR, "invalid UTF-8 byte 0x%02x")
X(NON_ASCII_IDENT, ERROR, "identifiers must be ASCII; found '%s'")
X(NUL_BYTE, ERROR, "NUL byte in source")
X(UNTERMINATED_STRING, ERROR, "unterminated string literal")
X(BAD_ESCAPE, ERROR, "unknown escape sequence '\\%s' in string")
X(INT_TOO_LARGE, ERROR, "integer literal '%s' is too large (the limit is 9223372036854775807)")
X(FLOAT_OUT_OF_RANGE, ERROR, "float literal '%s' is out of range")
X(BAD_NUMBER, ERROR, "malformed number '%s'")
/* end of lexer section */

/* ---- parser --------------------------------------------------------- */
X(SYNTAX, ERROR, "unexpected %s; expected %s")
X(SYNTAX_EOF, ERROR, "unexpected end of input; expected %s")
X(TOO_DEEP, ERROR, "expression nested too deeply (more than %d levels)")
X(TOO_MANY_ERRORS, ERROR, "too many errors; stopping")
X(INPUT_TOO_LARGE, ERROR, "source file is too large (%zu bytes; the limit is %zu)")
X(RANGE_OUTSIDE_REDUCTION, ERROR, "a range '%s in ...' is only allowed in a reduction header")
X(BAD_CALLEE, ERROR, "only a function, kernel or extern can be called by name")
X(NO_RVARS, ERROR, "'%s' needs at least one reduction variable")
X(BAD_RVAR, ERROR, "a reduction variable must be a name, like 'k' or 'k in 0..K'")
X(BAD_BROADCAST, ERROR, "expected 'B@[...]' after ';' in a layout; found '%s'")
X(MODULE_NOT_FOUND, ERROR, "module '%s' not found (looked for '%s')")
X(IMPORT_UNREADABLE, ERROR, "cannot read module '%s' ('%s': %s)")
X(POSITIONAL_AFTER_NAMED, ERROR, "positional argument after a named argument")
X(IMPORT_CYCLE, ERROR, "import cycle: '%s' leads back to this file")
/* end of parser section */

/* ---- checker: names ------------------------------------------------- */
X(UNKNOWN_NAME, ERROR, "unknown name '%s'")
X(UNKNOWN_FUNCTION, ERROR, "unknown function '%s'")
X(AMBIGUOUS_NAME, ERROR, "'%s' is ambiguous: both '%s' and '%s' define it")
X(DUPLICATE_ITEM, ERROR, "'%s' is already defined")
X(DUPLICATE_PARAM, ERROR, "'%s' is declared twice in '%s'")
X(DUPLICATE_DEF, ERROR, "'%s' is defined twice")
X(DEFINES_PARAM, ERROR, "'%s' is a %s of '%s' and cannot be defined in its body")
X(DUPLICATE_INDEX_VAR, ERROR, "index variable '%s' appears twice on the left side of '%s'")
X(INDEX_VAR_SHADOWS, ERROR, "index variable '%s' hides the %s of the same name")
X(SUM_TERM_INVARIANT, WARNING, "this term does not depend on %s, so the 'sum' adds it once for each of its terms")
X(DUPLICATE_RVAR, ERROR, "reduction variable '%s' appears twice in one reduction")
X(RVAR_SHADOWS, ERROR, "reduction variable '%s' hides the %s of the same name")
X(OUTPUT_NOT_DEFINED, ERROR, "output '%s' of kernel '%s' is never defined")
X(UNUSED_STAGE, WARNING, "%s '%s' is never used")
X(CYCLE, ERROR, "'%s' depends on itself: %s")
X(CALL_IN_EXPR, ERROR, "kernel '%s' cannot be called inside an expression")
X(FUNCTION_AS_VALUE, ERROR, "'%s' is a %s, not a value")
X(NOT_CALLABLE, ERROR, "'%s' is a %s and cannot be called")
X(NOT_INDEXABLE, ERROR, "'%s' is a %s and cannot be indexed")
X(TENSOR_NOT_INDEXED, ERROR, "'%s' is a tensor of rank %d and must be read with indices")
X(INDEX_COUNT, ERROR, "'%s' has rank %d but %d %s given")
X(UNKNOWN_MEMBER, ERROR, "tensors have no member '%s' (used on '%s'); the members are 'zero_pad' and 'clamp_edge'")
X(MEMBER_NOT_TENSOR, ERROR, "'%s' needs a tensor, but '%s' is a %s")
X(MEMBER_NOT_VALUE, ERROR, "'%s' cannot be used as a value")
X(ARITY, ERROR, "'%s' takes %s but %d %s given")
X(NAMED_ARG_NOT_ALLOWED, ERROR, "'%s' takes no named arguments")
X(TOP_LEVEL_ONLY, ERROR, "'%s' can only be used in top-level statements")
X(NOT_IN_KERNEL, ERROR, "%s cannot be used inside a kernel")
X(NOT_AT_TOP_LEVEL, ERROR, "%s can only be used inside a kernel")
X(NOT_SCALAR_CONTEXT, ERROR, "%s '%s' cannot be used in %s")
X(BIND_NOT_CALL, ERROR, "the right side of '%s = ...' must be a kernel call")
X(BIND_COUNT, ERROR, "'%s' returns %d output%s but the binding names %d")
X(RECURSIVE_CALL, ERROR, "kernel '%s' is used in its own definition")
X(DUPLICATE_ARG, ERROR, "argument '%s' of '%s' is given twice")
X(TOO_MANY_ARGS, ERROR, "too many arguments for '%s': it takes %d but %d were given")
X(UNKNOWN_NAMED_ARG, ERROR, "'%s' has no parameter named '%s'")
X(MISSING_ARG, ERROR, "missing argument '%s' in a call to '%s'")
X(ARG_NOT_TENSOR, ERROR, "argument '%s' of '%s' must be a tensor, not %s")
X(MULTI_OUTPUT_VALUE, ERROR, "'%s' returns %d outputs, which cannot be used as one value")
X(USE_BEFORE_DEF, ERROR, "'%s' is used before its definition")
X(CONST_BEFORE_DEF, ERROR, "kernel '%s' reads '%s', which is not defined yet here")
X(LET_CYCLE, ERROR, "'%s' is used in its own definition")
X(LET_TYPE_UNKNOWN, ERROR, "kernels cannot read '%s': its type and shape are not known before the program runs")
X(LET_COUNT, ERROR, "one value cannot be bound to %d names")
X(NO_VALUE, ERROR, "this expression gives no value")
X(EXTERN_TENSOR_PARAM, ERROR, "extern '%s' has tensor parameters and can only be called at the top level")
X(ON_NOT_CALL, ERROR, "'on' needs a kernel call on its left")
X(UNKNOWN_TARGET, ERROR, "unknown target '%s'")
X(HELPER_RANK0, ERROR, "'%s' has rank 0, so '%s' has no axes to pad")
X(UNKNOWN_KIND, ERROR, "unknown dtype kind '%s'")
X(UNKNOWN_DTYPE, ERROR, "unknown dtype '%s'")
X(TWO_PACKS, ERROR, "'..%s' is a second pack in one %s; at most one is allowed")
X(NOT_A_PACK, ERROR, "'..%s' is not %s: '%s' is a %s")
X(PACK_NOT_EXPANDED, ERROR, "'%s' is a pack of %s; write '..%s' in %s")
X(PACK_NOT_BOUND, ERROR, "shape pack '..%s' of '%s' is not in the shape of any tensor parameter")
X(PACK_NOT_GENERIC, ERROR, "'..%s' can only be used in a generic kernel")
X(PACK_IN_DIRECTIVE, ERROR, "'%s' is an index pack of '%s'; directives cannot name the variables of a pack")
X(NOT_GENERIC, ERROR, "'%s' is not a generic kernel, so it takes no dtype arguments")
X(DTYPE_ARG_COUNT, ERROR, "'%s' takes %s but %d %s given")
/* end of checker names section */

/* ---- checker: types ------------------------------------------------- */
X(BOOL_OPERAND, ERROR, "'%s' cannot be applied to bool values")
X(LOGIC_NOT_BOOL, ERROR, "operand of '%s' has type '%s'; it must be bool")
X(COND_NOT_BOOL, ERROR, "the condition of 'select' has type '%s'; it must be bool")
X(INDEX_NOT_INT, ERROR, "index %d of '%s' is %s; indices must be integers")
X(RANGE_NOT_INT, ERROR, "the range of '%s' has type '%s'; it must be an integer")
X(RANDOM_NOT_INT, ERROR, "the %s of '%s' has type '%s'; it must be an integer")
X(LITERAL_RANGE, ERROR, "literal %s does not fit in '%s'")
X(ARG_DTYPE, ERROR, "argument %d of '%s' is %s but the parameter is '%s'")
X(KERNEL_ARG_DTYPE, ERROR, "argument '%s' of '%s' has type '%s' but the parameter is '%s'")
X(SCALAR_ARG_NOT_SCALAR, ERROR, "argument '%s' of '%s' must be a scalar, not %s")
X(KERNEL_ARG_RANK, ERROR, "argument '%s' of '%s' has rank %d but the parameter has rank %d")
X(OUTPUT_DTYPE, ERROR, "output '%s' is declared '%s' but its value has type '%s'")
X(DEFAULT_DTYPE, ERROR, "the default of '%s' has type '%s' but the parameter is '%s'")
X(BIND_DTYPE, ERROR, "output '%s' is declared '%s' but '%s' returns '%s'")
X(ASSERT_NOT_BOOL, ERROR, "'assert' needs a bool, but this is %s")
X(BUILTIN_ARG, ERROR, "argument %d of '%s' must be %s")
X(TOP_TENSOR_ARITH, ERROR, "'%s' on whole tensors is not supported in top-level statements")
X(NEG_UNSIGNED, ERROR, "unary '-' cannot be applied to '%s' values")
X(ARG_REDUCE_VARS, ERROR, "'%s' takes exactly one reduction variable, not %d")
X(LET_DECL_MISMATCH, ERROR, "'%s' is declared %s but its value is %s")
/* A tensor literal that does not fit its let's type (SPEC 11.1). */
X(LET_LITERAL, ERROR, "the literal of '%s' does not fit its type %s: %s")
X(DTYPE_CONFLICT, ERROR, "dtype variable '%s' of '%s' is '%s' from %s but '%s' from %s")
X(DTYPE_UNBOUND, ERROR, "dtype variable '%s' of '%s' is not bound by any argument")
X(DTYPE_KIND, ERROR, "%s of '%s' is '%s', but dtype variable '%s' must be %s")
X(GENERIC_ARG_UNKNOWN, ERROR, "cannot instantiate '%s': the type of argument '%s' is not known before the program runs")
/* A kernel's `assert` reading a whole tensor (SPEC 6.8). */
X(ASSERT_NOT_SCALAR, ERROR, "'assert' in a kernel needs one bool value, but '%s' is a tensor of rank %d")
X(STR_OPERAND, ERROR, "'%s' cannot be applied to str values")
X(STR_SCALAR, ERROR, "scalar parameter '%s' cannot be a str")
X(STR_MIX, ERROR, "a str value meets a '%s' value; strings and numbers do not convert implicitly")
/* end of checker types section */

/* ---- checker: shapes and bounds ------------------------------------- */
X(SHAPE_EXPR, ERROR, "shape entries must be integer expressions of sizes, scalar parameters and literals")
X(SHAPE_NAME_KIND, ERROR, "'%s' cannot be used in a shape: it is %s")
X(UNKNOWN_SIZE, ERROR, "'%s' in an output shape is not a size of an input or a scalar parameter")
X(SIZE_NOT_BOUND, ERROR, "size variable '%s' is never bound")
X(NEGATIVE_SIZE, ERROR, "size %lld is negative")
X(SIZE_MISMATCH, ERROR, "size '%s' is %s from '%s' (axis %d) but %s from '%s' (axis %d)")
X(SHAPE_MISMATCH, ERROR, "axis %d of '%s' (a parameter of '%s') has size %s but must be %s")
X(OUTPUT_RANK, ERROR, "'%s' has rank %d but its definition has rank %d")
X(BIND_RANK, ERROR, "'%s' has rank %d but '%s' returns rank %d")
X(BIND_SHAPE, ERROR, "output '%s' is declared with axis %d of size %s but '%s' returns %s")
X(RVAR_NO_RANGE, ERROR, "cannot infer the range of reduction variable '%s': it indexes no tensor axis on its own")
X(RVAR_AMBIGUOUS, ERROR, "ambiguous range for reduction variable '%s': %s from '%s' axis %d vs %s from '%s' axis %d; write %s(%s in 0..%s)")
X(RANGE_NOT_SIZE, ERROR, "the range of '%s' must be an integer expression of sizes, scalar parameters and literals")
X(OOB_HIGH, ERROR, "read of '%s' at %s goes out of bounds: %s reaches %s but axis %d of '%s' has extent %s")
X(OOB_LOW, ERROR, "read of '%s' at %s goes out of bounds: %s reaches %s but axis %d of '%s' starts at %s")
X(DOMAIN_UNKNOWN, ERROR, "cannot infer the domain of axis %d of '%s'")
X(RANGE_ON_OUTPUT, ERROR, "'%s' is an output: the range of its index variable '%s' is its declared shape")
X(TOP_INDEX_OOB, ERROR, "index %lld is out of bounds for axis %d of '%s' with size %lld")
X(SLICE_STEP, ERROR, "the step of a slice must be positive, not %lld")
X(WHOLE_FORM, ERROR, "'%s' is bound to a whole-tensor expression, which cannot index or reduce")
X(WHOLE_SCALAR, ERROR, "the right side of '%s = ...' has no tensor operand")
X(WHOLE_SHAPE, ERROR, "the operands of '%s' differ in axis %d: '%s' has %s but '%s' has %s")
X(WHOLE_RANK, ERROR, "the operands of '%s' differ in rank: '%s' has rank %d but the others have rank %d")
X(LET_DECL_SIZE, ERROR, "size '%s' in the type of '%s' is not an integer constant")
X(KERNEL_ARG_MIN_RANK, ERROR, "argument '%s' of '%s' has rank %d but the parameter needs at least %d")
X(PACK_LENGTH, ERROR, "shape pack '..%s' of '%s' has %d %s from '%s' but %d from '%s'")
X(PACK_INDEX_COUNT, ERROR, "'%s' has rank %d but %d %s given: '..%s' stands for %d %s here")
X(PACK_INDEX_RANK, ERROR, "'%s' has rank %d, too small for %d %s besides '..%s'")
X(PACK_LENGTH_UNKNOWN, ERROR, "cannot tell how many index variables '..%s' of '%s' stands for")
X(SHAPE_COND, ERROR, "the condition of a select in a shape must compare integer expressions (== != < <= > >=, joined by && || !)")
/* end of checker shapes section */

/* ---- checker: schedules --------------------------------------------- */
X(SCHED_UNKNOWN_KERNEL, ERROR, "schedule for unknown kernel '%s'")
X(SCHED_DUPLICATE, ERROR, "kernel '%s' already has a schedule for '%s'")
X(SCHED_UNKNOWN_STAGE, ERROR, "'%s' is not a stage of '%s'")
X(SCHED_INPUT, ERROR, "'%s' is an input of '%s'; directives apply to stages")
X(SCHED_NOT_CALL, ERROR, "'%s' is not a kernel call, so it has no stage '%s'")
X(SCHED_UNKNOWN_DIRECTIVE, ERROR, "unknown schedule directive '%s'")
X(SCHED_ARITY, ERROR, "'%s' takes %s but %d %s given")
X(SCHED_ARG_KIND, ERROR, "argument %d of '%s' must be %s")
X(SCHED_UNKNOWN_VAR, ERROR, "'%s' is not a loop variable of '%s'")
X(SCHED_VAR_EXISTS, ERROR, "'%s' is already a loop variable of '%s'")
X(SCHED_NOT_RVAR, ERROR, "'%s' is not a reduction variable of '%s' (as '%s' needs)")
X(SCHED_NOT_INDEX_VAR, ERROR, "'%s' is not an index variable of '%s' (as '%s' needs)")
X(SCHED_SPLIT_TWICE, ERROR, "loop variable '%s' of '%s' is split twice")
X(SCHED_VAR_GONE, ERROR, "loop variable '%s' of '%s' no longer exists after '%s'")
X(SCHED_AT_SELF, ERROR, "'%s' cannot place '%s' at itself")
X(SCHED_LAYOUT_TENSOR, ERROR, "'%s' is not a tensor of '%s'")
X(SCHED_VAR_TWICE, ERROR, "loop variable '%s' appears twice in '%s'")
/* end of checker schedules section */

/* ---- interpreter: run-time errors ----------------------------------- */
/* Calls: the arguments against the parameters (at the parameter, with
 * a note at the call). */
X(RT_ARG_DTYPE, ERROR, "argument '%s' of '%s' has dtype '%s' but the parameter is '%s'")
X(RT_ARG_RANK, ERROR, "argument '%s' of '%s' has rank %d but the parameter has rank %d")
X(RT_SIZE_MISMATCH, ERROR, "size '%s' of '%s' is %lld from '%s' (axis %d) but %lld from '%s' (axis %d)")
X(RT_SHAPE_MISMATCH, ERROR, "axis %d of '%s' (a parameter of '%s') has size %lld but must be %s = %lld")
X(RT_MISSING_SCALAR, ERROR, "scalar parameter '%s' of '%s' has no default and was not given")
X(RT_SIZE_UNDEFINED, ERROR, "%s cannot be computed: %s divides by zero or overflows")
X(RT_NEGATIVE_EXTENT, ERROR, "output '%s' of '%s' would have the negative size %lld on axis %d (%s)")
X(RT_TOO_LARGE, ERROR, "'%s' of '%s' cannot be made: %s")
X(RT_CONST_CHANGED, ERROR, "top-level tensor '%s' is %s but the kernel was checked with %s")
X(RT_OUTPUT_SHAPE, ERROR, "output '%s' of '%s' has size %lld on axis %d but is declared with %lld")
/* Inside kernels: "index 512 out of range 0..511 on axis 1 of 'A' at
 * A[i=3, k=512] (declared at matmul.tdsl:1:14)", at the read (every
 * index as written=value, a compound one in parentheses: x[(i + 1)=4],
 * a literal as its value), with a note at the stage naming the point
 * ("while computing C[i=3, j=0] with k=512"). */
X(RT_INDEX_OOB, ERROR, "index %lld out of range %s on axis %d of '%s' at %s (declared at %s)")
X(RT_EMPTY_ARG_REDUCE, ERROR, "'%s' of an empty range has no value: '%s' runs over %lld..%lld")
/* Externs, at the extern's declaration. */
X(RT_EXTERN_LIB, ERROR, "cannot load '%s' for extern '%s': %s")
X(RT_EXTERN_SYMBOL, ERROR, "extern '%s' is not in %s")
X(RT_EXTERN_TYPE, ERROR, "extern '%s' cannot be called from tdsl: %s has type '%s', which has no C type")
X(RT_EXTERN_FFI, ERROR, "extern '%s' cannot be called: libffi refuses its signature (status %d)")
X(RT_EXTERN_SHAPE, ERROR, "axis %d of argument '%s' of '%s' has size %lld but must be %s")
/* A kernel's `assert` that does not hold for a call's arguments, at the
 * assert, with a note at the call: the message, or the condition as
 * written. */
X(RT_KERNEL_ASSERT, ERROR, "'%s' refuses these arguments: %s")
X(RT_STR_NUMBER, ERROR, "the string \"%s\" is not %s, so it cannot be converted to '%s'")
/* end of runtime section */

/* ---- scripts and the command line ------------------------------------ */
X(ASSERT_FAILED, ERROR, "assertion failed: %s")
X(TARGET_UNAVAILABLE, ERROR, "target '%s' is not available yet: %s")
X(LOAD_FAILED, ERROR, "cannot load %s")
X(SAVE_FAILED, ERROR, "cannot save %s")
X(TENSOR_FILE_KIND, ERROR, "'%s' is not a tensor file: the name must end in .npy, .pb or .safetensors")
X(NPY_KEY, ERROR, "'%s' holds one tensor (a .npy or .pb file); it has no entry '%s'")
X(TENSOR_SIZE, ERROR, "cannot make a tensor of shape %s: %s")
X(EMPTY_REDUCTION, ERROR, "'%s' over an empty range has no result")
/* end of script section */

/* ---- code generation (codegen/) ----------------------------------------- */
/* What the cpu backend cannot compile yet, at the construct's location
 * ("'compute_at' is not supported by the cpu backend yet"). */
X(CG_UNSUPPORTED, ERROR, "%s is not supported by the cpu backend yet")
/* The system compiler refused the generated C (a bug in tdsl). */
X(CG_CC_FAILED, ERROR, "internal error: the C compiler failed on the generated '%s' (see '%s')")
X(CG_CACHE, ERROR, "cannot use the kernel cache: %s")
X(CG_DLOPEN, ERROR, "cannot load the compiled kernel '%s': %s")
/* A directive that would race on, or reassociate, a reduction. */
X(CG_RVAR_SERIAL, ERROR, "'%s' of reduction variable '%s' without rfactor: its iterations accumulate into the same elements")
X(CG_RVAR_ORDER, ERROR, "'%s' would change the order of the reduction variables, which reassociates the reduction")
X(CG_AOT_CONST, ERROR, "kernel '%s' reads the top-level tensor '%s', which a compiled C entry cannot take; make it a parameter")
/* The accelerator's assembler (codegen/acc/acc_asm.c): the message
 * says what was expected; rules between the ops of one bundle have
 * their own ids. */
X(ACC_SYNTAX, ERROR, "%s")
X(ACC_UNKNOWN_OP, ERROR, "unknown instruction '%s'")
X(ACC_OPERAND, ERROR, "%s")
X(ACC_SLOT_TWICE, ERROR, "%s")
X(ACC_WRITE_TWICE, ERROR, "%s")
X(ACC_PORT, ERROR, "%s")
X(ACC_PRECISION, ERROR, "%s")
X(ACC_DIRECTIVE, ERROR, "%s")
X(ACC_MACHINE, ERROR, "%s")
/* The simulator: a read before the value is there (strict mode), an
 * address through T out of range. */
X(ACC_HAZARD, ERROR, "%s")
X(ACC_SIM, ERROR, "%s")
/* Layouts on the accelerator (codegen/acc/layout*.c): the text of a
 * layout, and its check against a machine and a tensor. */
X(LAYOUT_SYNTAX, ERROR, "expected %s in a layout; found %s")
X(LAYOUT_ZERO, ERROR, "a layout factor's %s must be at least 1")
X(LAYOUT_SPACE, ERROR, "unknown memory space '%s'; expected lm0, lm1, r, s, lb, lc or d")
X(LAYOUT_PLACE_EMPTY, ERROR, "the placement [%lld:%lld] holds no address: the end must be past the start")
X(LAYOUT_LEVEL, ERROR, "machine '%s' has no level '%s' (its levels: %s)")
X(LAYOUT_RANK, ERROR, "the layout has %d axes, but %s has %d")
X(LAYOUT_AXIS_SIZE, ERROR, "the factors of axis '%s' multiply to %lld, but the axis has %lld elements")
X(LAYOUT_FANOUT, ERROR, "'%s' reaches %s index %lld, but machine '%s' has %d %s nodes per parent")
X(LAYOUT_WORD, ERROR, "sub-words reach index %lld, but a long word holds %d %s elements")
X(LAYOUT_CAPACITY, ERROR, "the layout reaches address %lld of '%s', which holds %lld long words on machine '%s'")
X(LAYOUT_PLACE_SIZE, ERROR, "the layout reaches address %lld, past the end of its placement '%s[%lld:%lld]'")
X(LAYOUT_BELOW_SPACE, ERROR, "a tensor in '%s' cannot be split over '%s': that level is below the nodes owning '%s'")
X(LAYOUT_OVERLAP, ERROR, "elements %s and %s both land on %s")
X(LAYOUT_BCAST_SPLIT, ERROR, "'%s' is both split over and copied over (B@[...]); a level may be one or the other")
X(LAYOUT_BCAST_TWICE, ERROR, "'%s' appears twice in B@[...]")
X(LAYOUT_AXIS_NAME, ERROR, "'%s' is not an axis of %s (its axes: %s)")
X(LAYOUT_COMPACT_SPLIT, ERROR, "axis '%s' has %lld elements, which '%s' (%lld positions) cannot split evenly")
X(LAYOUT_SIZE_CONFLICT, ERROR, "this layout makes '%s' %lld, but the layout of '%s' makes it %lld")
X(LAYOUT_SHAPE, ERROR, "the layout is written for shape %s, but the tensor has shape %s")
X(LAYOUT_TOO_LARGE, ERROR, "%s has more elements than the %lld a layout can have")
/* distribute on the accelerator (codegen/acc/dist.c). */
X(DIST_LEVEL_TWICE, ERROR, "'%s' appears twice in the distributes of stage '%s'; a level deals one loop")
/* What the accel target cannot compile yet, naming the construct
 * ("accel target cannot compile reductions yet"). */
X(ACC_CG_UNSUPPORTED, ERROR, "accel target cannot compile %s yet")
/* Schedules the cpu backend cannot run as written (SPEC 10.3), at the
 * directive. */
X(CG_VECTOR_WIDTH, ERROR, "'%s' width %lld is not a power of two from 2 to %d")
X(CG_CONST_EXTENT, ERROR, "'%s' of loop '%s' needs a constant number of iterations")
X(CG_AT_NOT_ENCLOSING, ERROR, "'%s' is computed inside loop '%s' of '%s', which does not enclose every read of it")
/* bound(x, min, extent) against the stage's domain: at the directive
 * when both are constants, else when the kernel is called. */
X(CG_BOUND, ERROR, "'bound' gives '%s' of '%s' min %lld and extent %lld, but its domain has min %lld and extent %lld")
X(CG_BOUND_AFTER, ERROR, "'bound' of '%s' must come before the directives that split or fuse its loop")
X(CG_STREAM_NOT_OUTPUT, ERROR, "'stream' of '%s': only an output's rows are stored past the caches")
X(CG_STORAGE_OUTPUT, ERROR, "'reorder_storage' of output '%s': an output is stored as the caller's tensor, row-major")
X(CG_TAIL, ERROR, "tail strategy '%s' does not apply here: %s")
/* store_at(stage, v) against where the stage is computed. */
X(CG_STORE_AT, ERROR, "'%s' of '%s' must be at or outside where it is computed: %s")
X(CG_STORE_PARALLEL, ERROR, "'%s' of '%s' is outside parallel loop '%s', inside which it is computed: the threads would share its buffer")
/* end of codegen section */
