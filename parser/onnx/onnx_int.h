/*
 * onnx_int.h - what the files of the ONNX importer share: the graph
 * model (values with dtypes, concrete shapes and, for constants, their
 * data), the emitter's state, and the op tables.  Reading is in
 * onnx_read.c, the value table and shape helpers in onnx_shape.c,
 * constant folding in onnx_fold.c, symbolic input sizes in onnx_sym.c,
 * the Graphviz form in onnx_dot.c, the nodes that reach an output in
 * onnx_live.c, graph inputs in onnx_input.c, values
 * the importer makes itself (slices, stacks) in onnx_values.c, the ops
 * in onnx_ops_*.c (by family: elementwise, nn, conv, tensor, loss,
 * einsum, grid, misc, resize, rnn, scatter, text, quant, control, seq),
 * the driver, the text and the weights in onnx_emit.c.
 */
#ifndef TL_ONNX_INT_H
#define TL_ONNX_INT_H

#include "interp/interp.h"
#include "parser/parser.h"

#include "onnx/onnx.pb-c.h"

/* The largest dimension and node count the importer accepts (tensor
 * sizes are limited by TL_TENSOR_MAX_BYTES). */
#define OX_MAX_DIM (((int64_t)1 << 31) - 1)
#define OX_MAX_NODES 100000

/* OX_SEQ: a sequence known at import (onnx_ops_seq.c), its elements
 * in seq[nseq]; dt is theirs.  OX_NONE: an optional without an element
 * (onnx_ops_opt.c); dt is the element's type's. */
enum { OX_INPUT, OX_INIT, OX_NODE, OX_SEQ, OX_NONE };

/* One named tensor of the graph. */
typedef struct OxValue {
    char *name;             /* the ONNX name (owned) */
    char *id;               /* the tdsl identifier */
    int kind;               /* OX_INPUT, OX_INIT (also Constant), OX_NODE */
    int used;               /* read by an emitted stage */
    TlDType dt;
    int rank;
    int64_t dims[TL_MAX_RANK];
    TlTensor *cval;         /* the value when known at import */
    TlTensor *bval;         /* else the value it has for the data bound
                               at import (a bound float input, and what
                               is computed from such), which the kernel
                               still computes: what a trip count or an
                               output's size may be taken from
                               (onnx_fold.c, ox_bound) */
    struct OxValue **seq;   /* OX_SEQ: the elements (owned array) */
    int nseq;
    int seqin;              /* OX_SEQ, OX_NONE: a graph input */
    int opt;                /* the element of an optional (a graph
                               output of it is an OptionalProto) */
    int seqelem;            /* an element of a sequence graph input or
                               output (named by its sequence's line) */
    /* Stages that read this one through a boundary helper (see
     * ox_put_bounded), so that each is made once. */
    struct {
        const char *helper;
        unsigned mask;
        const char *id;
    } bounded[4];
    int nbounded;
} OxValue;

/* A symbolic dimension of the graph's inputs (its dim_param, or ""
 * for an unnamed one), the size variable it becomes, and the first
 * input that has it. */
#define OX_MAX_SYMS 8
typedef struct OxSym {
    const char *param;
    const char *id;
    const char *input;
} OxSym;

/* The names of a subgraph being imported (onnx_ops_control.c). */
typedef struct OxScope OxScope;

/* The importer's state for one model. */
typedef struct OxModel {
    const char *path;       /* for messages */
    char *dir;              /* the model's folder (external data); NULL
                               for a model read from memory */
    Onnx__ModelProto *mp;
    Onnx__GraphProto *g;
    int opset;
    OxValue **v;            /* each allocated alone: pointers stay valid */
    int nv, capv;
    TlBuf body;             /* the kernel's statements */
    TlBuf pending;          /* stages the node's op asked for on the
                               way (ox_put_bounded), added after it */
    int error;              /* a message has been printed */
    int ntmp;               /* counter for fresh intermediate names */
    char **names;           /* identifiers taken */
    int nnames, capnames;
    const Onnx__NodeProto *node;  /* the node being emitted */
    unsigned char *attr_read; /* per attribute of node: an op asked */
    size_t nattr_read;
    int progress;           /* a progress line is on stderr */
    /* Symbolic input dimensions, kept as size variables (onnx_sym.c):
     * each is imported with a stand-in size, twice (pass 0 and 1, with
     * different stand-ins), and the two texts must agree once the
     * stand-ins are written as the variable. */
    OxSym *sym;
    int nsym;
    int pass;
    int quiet;              /* messages are not printed (error is set) */
    /* Control flow (onnx_ops_control.c): the scope of the subgraph
     * whose nodes are being imported (NULL: the main graph), how deep
     * subgraphs nest there, and the nodes of subgraphs imported so far
     * (each iteration of a loop counts its body again). */
    OxScope *scope;
    const char *label;      /* the current node's name in its subgraph
                               (its copy's names the iteration) */
    int depth;
    int64_t unrolled;
} OxModel;

/* onnx_read.c */
Onnx__ModelProto *ox_read_model(const char *path, char *err, size_t errlen);
Onnx__ModelProto *ox_parse_model(const void *data, size_t n,
                                 const char *path, char *err, size_t errlen);
TlTensor *ox_tensor_from_proto(OxModel *m, const Onnx__TensorProto *p);
void ox_fail(OxModel *m, const char *fmt, ...) TL_PRINTF(2, 3);
void ox_unsupported(OxModel *m, const char *fmt, ...) TL_PRINTF(2, 3);
/* Erases the progress line of a long import, if one is shown. */
void ox_clear_progress(OxModel *m);

/* onnx_shape.c */
OxValue *ox_find(OxModel *m, const char *name);
OxValue *ox_add(OxModel *m, const char *name, int kind, TlDType dt, int rank,
                const int64_t *dims);
char *ox_ident(OxModel *m, const char *name);
int ox_broadcast(OxModel *m, const OxValue *a, const OxValue *b, int *rank,
                 int64_t *dims);
/* Appends "id[idx...]" reading v at the output index vars i0.. of an
 * output of rank orank (numpy broadcasting). */
void ox_read_bcast(TlBuf *b, OxValue *v, int orank, const int64_t *odims);
void ox_lhs(TlBuf *b, const char *id, int rank);
/* The same with v's ranges declared ("y[i0 in 0..2, i1 in 0..5] = "):
 * for an output whose size is counted from data (NonZero's, NMS's),
 * which its readers index with data (GatherND of NonZero's positions),
 * so that its extent is fixed by its definition (SPEC 6.4); a graph
 * output's are its declared shape already. */
void ox_lhs_fixed(OxModel *m, TlBuf *b, const OxValue *v);
int64_t ox_numel(const OxValue *v);
/* Reading v through boundary helper `helper` ("zero_pad" or
 * "clamp_edge"): writes what to index instead of "v.helper".  A
 * helper read needs its tensor's extent fixed by its definition,
 * which an intermediate stage's is not always (a Conv's output is
 * read at i2 + r1 - 1, say), so for a node's value the
 * helper is written out as a stage of its own that reads v at clamped
 * indices, guarding the axes (bit k of mask: axis k) where the index
 * is not a variable alone; other values read the helper directly. */
void ox_put_bounded(OxModel *m, TlBuf *out, OxValue *v, const char *helper,
                    unsigned mask);
/* The identifier of a stage derived from v (a padded or clamped copy:
 * helper and mask say which), made once: *made is 1 when it is new and
 * the caller writes its definition (into m->pending). */
const char *ox_derived(OxModel *m, OxValue *v, const char *helper,
                       unsigned mask, const char *suffix, int *made);
/* What to read v by at positions computed from data (GridSample's
 * taps, MaxUnpool's sources): v itself when its extent is fixed (a
 * graph input, a constant), else a copy stage, made once, that
 * declares its ranges (`x_all[i0 in 0..1, ...] = x[i0, ...]`, SPEC
 * 6.4): a node's value has no region its readers could give it. */
const char *ox_fixed(OxModel *m, OxValue *v);
/* The index texts of a read, one per axis. */
typedef char OxIdx[512];
/* Appends "v.id[idx...]" and marks v used; through boundary helper
 * `helper` (ox_put_bounded, guarding the axes whose index is not a
 * variable alone) in ox_read_bounded. */
void ox_read(TlBuf *b, OxValue *v, OxIdx *idx);
void ox_read_bounded(OxModel *m, TlBuf *b, OxValue *v, const char *helper,
                     OxIdx *idx);
/* An i64 literal, INT64_MIN included. */
void ox_int_lit(TlBuf *b, int64_t x);
/* Is index text s a variable alone ("i2", "r0")? */
int ox_plain_index(const char *s);
int ox_dims_ok(int rank, const int64_t *dims);
TlDType ox_dtype(int32_t onnx);
int ox_check_graph(OxModel *m);
/* live[i]: whether node i of g reaches a graph output (onnx_live.c);
 * the caller frees the array. */
unsigned char *ox_live_nodes(const Onnx__GraphProto *g);
void ox_float_lit(TlBuf *b, double x);

/* onnx_sym.c */
/* The stand-in size of a symbolic dimension of input `input` (a new
 * size variable, or the one of the same dim_param); -1 after a
 * message when there are too many. */
int64_t ox_sym_dim(OxModel *m, const char *param, const char *input);
/* Pass 0's text with each stand-in written as its size variable, or
 * NULL when pass 1's text or weights differ otherwise (the model
 * computes with the size, so it must be bound). */
char *ox_sym_generalise(OxModel *m0, const char *text0, const char *text1,
                        const TlNamedTensor *w0, int n0,
                        const TlNamedTensor *w1, int n1);
/* "input 'x' has a symbolic dimension 'n'; give a shape with --bind" */
void ox_sym_refuse(OxModel *m);

/* onnx_fold.c: is the current node computable at import (every input
 * a constant)?  After its op emitted its stages from body_start on,
 * ox_fold runs them on the interpreter, makes the outputs constants
 * and takes the stages back; 0, or -1 (nothing changed) when it cannot.
 * used_before[i]: the `used` flag of node input i before the op ran. */
int ox_foldable(OxModel *m);
int ox_fold(OxModel *m, size_t body_start, const int *used_before);
/* Is every input of the current node known at import or for the
 * bound data (cval or bval), and small?  Then ox_shadow runs the
 * stages its op emitted from body_start on and keeps the outputs as
 * their bval, leaving the stages in the kernel. */
int ox_shadowable(OxModel *m);
void ox_shadow(OxModel *m, size_t body_start);
/* Runs `stages` (statements of a kernel body) on the interpreter with
 * the values at import (ox_bound) of ins[nin] and gives the scalar of
 * dtype dt they compute as `out`; NULL when that fails. */
TlTensor *ox_eval(const char *stages, OxValue **ins, int nin,
                  const char *out, TlDType dt);
/* v's value at import: its cval, else its bval, else NULL. */
TlTensor *ox_bound(const OxValue *v);

/* onnx_emit.c: imports node n (its op's stages, or its outputs folded
 * to constants); 0, or -1 after a message.  Control-flow ops import
 * their subgraphs' nodes through it; the current node is the caller's
 * again afterwards. */
int ox_import_node(OxModel *m, const Onnx__NodeProto *n);

/* onnx_input.c: graph input vi, number pos of those that are not
 * initializers, its dtype and shape from its type or from binds[]; 0,
 * or -1 after a message.  Does bind name b name input `name`, number
 * pos ("#0" is the first)? */
int ox_add_input(OxModel *m, const Onnx__ValueInfoProto *vi, int pos,
                 const TlOnnxBind *binds, int nbinds);
int ox_bind_names(const char *b, const char *name, int pos);

/* onnx_ops_seq.c: sequence graph input vi, its elements read from the
 * SequenceProto file spec of its --bind (NULL: none given); 0, or -1
 * after a message. */
int ox_seq_input(OxModel *m, const Onnx__ValueInfoProto *vi,
                 const char *spec);
/* A bound sequence graph input `name` of ts[n] (each taken; the array
 * is the caller's): an element parameter each; NULL after a message. */
OxValue *ox_seq_bound(OxModel *m, const char *name, TlDType dt,
                      TlTensor **ts, int n);
/* Identity of a sequence or an optional: the same under the output's
 * name. */
int ox_seq_identity(OxModel *m);
/* The node's output i as a new sequence of elems[n] (copied); 0, or -1
 * after a message. */
int ox_seq_out(OxModel *m, int i, TlDType dt, OxValue **elems, int n);

/* onnx_ops_opt.c: optional graph input vi, bound to the OptionalProto
 * file spec (NULL: none given); 0, or -1 after a message. */
int ox_opt_input(OxModel *m, const Onnx__ValueInfoProto *vi,
                 const char *spec);
/* Does v stand for one graph input (a tensor, or a sequence or an
 * optional whose elements are parameters of their own)? */
int ox_graph_input(const OxValue *v);

/* onnx_values.c: values the importer makes itself. */
/* A name free in the value table made from base and suffix ("@0"):
 * base@0, base@0@2, ...; its identifier drops the '@' (base_0).
 * Owned by the caller. */
char *ox_fresh(OxModel *m, const char *base, const char *suffix);
/* A new constant value owning t. */
OxValue *ox_const(OxModel *m, const char *name, TlTensor *t);
/* v at position pos of axis `axis` (the axis dropped), named
 * base+suffix: computed at import when v is a constant, else a stage. */
OxValue *ox_take(OxModel *m, OxValue *v, int axis, int64_t pos,
                 const char *base, const char *suffix);
/* vals[n] (n >= 1, of one dtype and shape) stacked along a new axis
 * `axis`, the last first when rev: the node's output oi, or (oi < 0) a
 * value named base; a constant when all are.  NULL after a message. */
OxValue *ox_stack(OxModel *m, OxValue **vals, int64_t n, int axis,
                  int rev, int oi, const char *base);
/* The node's output i is v: a constant when v is one, else a copy
 * stage; nothing for an output left out ("").  0, or -1. */
int ox_give(OxModel *m, int i, OxValue *v);

/* Attributes of the current node.  Each one an op asks for is marked
 * read; an attribute no op asked for is reported as unsupported after
 * the op ran (ox_check_attrs), so none is silently ignored.  An op
 * that knowingly ignores one (it cannot change the result) says so
 * with ox_attr_ignore. */
void ox_attr_ignore(OxModel *m, const char *name);
int ox_check_attrs(OxModel *m);
const Onnx__AttributeProto *ox_attr(OxModel *m, const char *name);
int64_t ox_attr_i(OxModel *m, const char *name, int64_t dflt);
double ox_attr_f(OxModel *m, const char *name, double dflt);
int ox_attr_ints(OxModel *m, const char *name, int64_t *out, int max);

/* The node's input i, or NULL when absent (or given as ""). */
OxValue *ox_in(OxModel *m, int i);
/* The same, for an input the op needs: NULL after a message. */
OxValue *ox_need_in(OxModel *m, int i);
/* The integers of constant input v (axes, a shape; at most max); -1
 * after a message when v is not known at import or not such a list. */
int ox_const_ints(OxModel *m, OxValue *v, int64_t *out, int max);
/* Declares the node's output i; the value, or NULL after a message. */
OxValue *ox_out(OxModel *m, int i, TlDType dt, int rank,
                const int64_t *dims);
/* Starts a statement comment for the current node. */
void ox_comment(OxModel *m);

/* An op: emits the node's stages; 0, or -1 after a message. */
typedef int (*OxOpFn)(OxModel *m);
typedef struct OxOp {
    const char *name;
    OxOpFn fn;
} OxOp;
OxOpFn ox_elementwise_op(const char *name);
OxOpFn ox_nn_op(const char *name);
OxOpFn ox_conv_op(const char *name);
OxOpFn ox_tensor_op(const char *name);
OxOpFn ox_loss_op(const char *name);
OxOpFn ox_scatter_op(const char *name);
OxOpFn ox_einsum_op(const char *name);
OxOpFn ox_rnn_op(const char *name);
OxOpFn ox_resize_op(const char *name);
OxOpFn ox_misc_op(const char *name);
OxOpFn ox_grid_op(const char *name);
OxOpFn ox_text_op(const char *name);
OxOpFn ox_quant_op(const char *name);
OxOpFn ox_control_op(const char *name);
OxOpFn ox_scan_op(const char *name);
OxOpFn ox_seq_op(const char *name);
OxOpFn ox_opt_op(const char *name);
OxOpFn ox_dd_op(const char *name);
OxOpFn ox_nms_op(const char *name);
OxOpFn ox_random_op(const char *name);
OxOpFn ox_str_op(const char *name);
/* onnx_ops_str.c: appends s[n] as a tdsl string literal; -1 when it
 * cannot be one (a NUL or another control byte the literal has no
 * escape for). */
int ox_str_lit(TlBuf *b, const uint8_t *s, size_t n);
/* onnx_ops_dd.c, for ops whose output's size depends on data: is v's
 * value known at import (0), else -1 after a message; the i64 scalar
 * `count` that `stages` compute from ins[nin] at import (ox_eval),
 * 0 or more (0: the output is empty, a zero axis; stages that do not
 * run, or a negative count, are an internal error: a bug of the
 * importer's). */
int ox_dd_known(OxModel *m, const OxValue *v);
int64_t ox_dd_count(OxModel *m, const char *stages, OxValue **ins, int nin);
/* Dropout in training mode (onnx_ops_random.c): data x, the ratio (a
 * scalar input, or NULL: the constant r), training_mode (a scalar bool
 * input, or NULL: true); 0, or -1 after a message. */
int ox_dropout_training(OxModel *m, OxValue *x, OxValue *ratio, double r,
                        OxValue *train);
/* Subgraphs imported in line (onnx_ops_control.c), for Loop, Scan and
 * SequenceMap: body g once, its inputs ins[nin], the values of its
 * outputs in outs[g->n_output]; the names it defines get `suffix`,
 * its nodes' comments and messages say `where` ("iteration 2 of Loop
 * 'y'").  ox_unroll_check refuses (-1, after a message) `iters`
 * iterations of g beyond OX_MAX_UNROLL or OX_MAX_NODES nodes in all;
 * ox_graph_attr is the node's graph attribute (NULL after a message);
 * ox_node_label the node's name for messages and comments. */
#define OX_MAX_UNROLL 1024
int ox_body_import(OxModel *m, const Onnx__GraphProto *g, OxValue **ins,
                   size_t nin, const char *suffix, const char *where,
                   OxValue **outs);
int ox_unroll_check(OxModel *m, const Onnx__GraphProto *g, int64_t iters);
const Onnx__GraphProto *ox_graph_attr(OxModel *m, const char *name);
const char *ox_node_label(const OxModel *m);
/* Iteration `it` of the node's body: the suffix of the names it
 * defines ("TAG@2"), its place in messages ("iteration 2 of Loop 'y'";
 * `what`: "iteration" or "element"), and its comment in the kernel. */
#define OX_SUFFIX_LEN 64
#define OX_WHERE_LEN 300
void ox_body_iter(OxModel *m, const char *what, const char *tag,
                  int64_t it, char *suffix, char *where);
/* BatchNormalization in training mode (onnx_ops_misc.c). */
int ox_batchnorm_training(OxModel *m);

/* onnx_ops_nn.c: the output shape of MatMul(a, b) and the reads of a
 * and b in its stage, the product summed over r0 in 0..k; the output
 * axes of a's rows and b's columns (-1 for a vector operand), which
 * per-row and per-column quantization parameters follow. */
typedef struct OxMatMul {
    int rank;
    int64_t dims[TL_MAX_RANK];
    int64_t k;
    OxIdx ia[TL_MAX_RANK], ib[TL_MAX_RANK];
    int row, col;
} OxMatMul;
int ox_matmul_geometry(OxModel *m, OxValue *a, OxValue *b, OxMatMul *g);

/* onnx_ops_conv.c: the output shape of Conv(x, w) (the node's strides,
 * dilations, pads, auto_pad and group), the reads of x and w in its
 * stage, summed over `range` (r0 the input channel, r1.. the window),
 * and whether x is read outside its extent (through zero_pad). */
typedef struct OxConv {
    int rank;
    int64_t dims[TL_MAX_RANK];
    OxIdx ix[TL_MAX_RANK], iw[TL_MAX_RANK];
    char range[256];
    int pad;
} OxConv;
int ox_conv_geometry(OxModel *m, OxValue *x, OxValue *w, OxConv *g);

#endif
