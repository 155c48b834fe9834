// Weight-stationary systolic array: ROWS x COLS processing elements (systolic_pe.sv), signed
// operands of OPERAND_BITS (int8 and uint8 after zero-point subtraction fit in 10), int32
// accumulation that wraps like the model's.
//
// One tile, with the phase lengths of the tensor unit's timing model
// (hw_model/tensor/dataflow.cpp, weight stationary):
//   preload  k cycles: w_valid with row w_row of B (COLS operands) enters the shadow bank;
//   stream   m cycles: a_valid with one row of A (ROWS operands, zero beyond k); element r of
//            the row enters PE row r after r cycles (skew); `swap` with the first row makes the
//            preloaded bank the one the row multiplies with;
//   results  partial sums flow down; column c's sum of A row i leaves the bottom PE row in
//            cycle t_i + ROWS + c (t_i: the cycle row i was presented), flagged by c_valid[c]:
//            the first result ROWS cycles after the stream starts, the last (ROWS-1)+(COLS-1)
//            cycles after it ends.
// The adapter (tensor_rtl_core.cpp) runs each tile through alone; a preload for the next tile
// while the current one still drains would overwrite the bank its last rows read.
module systolic_array #(
    parameter int ROWS = 16,
    parameter int COLS = 16,
    parameter int OPERAND_BITS = 10
) (
    input  logic clk,
    input  logic rst_n,
    // Preload: one row of B into the shadow weight bank.
    input  logic                                     w_valid,
    input  logic [$clog2(ROWS)-1:0]                  w_row,
    input  logic signed [COLS-1:0][OPERAND_BITS-1:0] w_data,
    // Stream: one row of A; swap makes the preloaded bank active from this row on.
    input  logic                                     a_valid,
    input  logic                                     swap,
    input  logic signed [ROWS-1:0][OPERAND_BITS-1:0] a_data,
    // Results, skewed by column: c_valid[c] flags column c's sum in c_data[c].
    output logic [COLS-1:0]                          c_valid,
    output logic signed [COLS-1:0][31:0]             c_data
);
    logic active;  // the bank rows entering now multiply with; the other one is preloaded
    always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) active <= 1'b0;
        else if (a_valid && swap) active <= ~active;
    end
    wire entering_bank = swap ? ~active : active;
    // A preload fills the bank rows do not stream with: the inactive one, or, in the cycle a
    // swap makes that one active, the bank it retires.
    wire preload_bank = (a_valid && swap) ? active : ~active;

    // Signals between PEs: a, v, k move right (column index COLS is past the edge), p and pv
    // move down (row index 0 is the array's top edge).
    logic signed [OPERAND_BITS-1:0] a_h [ROWS][COLS+1];
    logic                           v_h [ROWS][COLS+1];
    logic                           k_h [ROWS][COLS+1];
    logic signed [31:0]             p_v [ROWS+1][COLS];
    logic                           pv_v [ROWS+1][COLS];

    for (genvar r = 0; r < ROWS; r++) begin : row
        // Skew: element r waits r cycles, with its valid flag and bank.
        if (r == 0) begin : direct
            assign a_h[r][0] = a_data[r];
            assign v_h[r][0] = a_valid;
            assign k_h[r][0] = entering_bank;
        end else begin : delayed
            logic signed [OPERAND_BITS-1:0] a_d [r];
            logic                           v_d [r];
            logic                           k_d [r];
            for (genvar s = 0; s < r; s++) begin : stage
                always_ff @(posedge clk or negedge rst_n) begin
                    if (!rst_n) begin
                        a_d[s] <= '0;
                        v_d[s] <= 1'b0;
                        k_d[s] <= 1'b0;
                    end else begin
                        a_d[s] <= s == 0 ? a_data[r] : a_d[s - 1];
                        v_d[s] <= s == 0 ? a_valid : v_d[s - 1];
                        k_d[s] <= s == 0 ? entering_bank : k_d[s - 1];
                    end
                end
            end
            assign a_h[r][0] = a_d[r - 1];
            assign v_h[r][0] = v_d[r - 1];
            assign k_h[r][0] = k_d[r - 1];
        end

        for (genvar c = 0; c < COLS; c++) begin : column
            systolic_pe #(.OPERAND_BITS(OPERAND_BITS)) pe (
                .clk, .rst_n,
                .w_en(w_valid && w_row == r[$clog2(ROWS)-1:0]), .w_bank(preload_bank), .w_data(w_data[c]),
                .a_in(a_h[r][c]), .v_in(v_h[r][c]), .k_in(k_h[r][c]), .p_in(p_v[r][c]),
                .a_out(a_h[r][c + 1]), .v_out(v_h[r][c + 1]), .k_out(k_h[r][c + 1]),
                .p_out(p_v[r + 1][c]), .pv_out(pv_v[r + 1][c]));
        end
    end

    for (genvar c = 0; c < COLS; c++) begin : edges
        assign p_v[0][c] = '0;
        assign pv_v[0][c] = 1'b0;
        assign c_valid[c] = pv_v[ROWS][c];
        assign c_data[c] = p_v[ROWS][c];
    end
endmodule
