// The vector unit's integer lanes: LANES vector_lane ALUs side by side, one group of LANES
// elements entering per cycle (in_valid), its results leaving DEPTH cycles later (out_valid),
// the timing of the vector unit's model (hw_model/vector/vector_unit.cpp) for one-cycle ops.
module vector_lanes #(
    parameter int LANES = 16,
    parameter int DEPTH = 4
) (
    input  logic                           clk,
    input  logic                           rst_n,
    input  logic                           in_valid,
    input  logic [4:0]                     op,
    input  logic signed [LANES-1:0][31:0]  a,
    input  logic signed [LANES-1:0][31:0]  b,
    input  logic signed [31:0]             lo,
    input  logic signed [31:0]             hi,
    output logic                           out_valid,
    output logic signed [LANES-1:0][31:0]  result
);
    for (genvar l = 0; l < LANES; l++) begin : lane
        vector_lane #(.DEPTH(DEPTH)) alu (
            .clk, .rst_n, .op, .a(a[l]), .b(b[l]), .lo, .hi, .result(result[l]));
    end

    logic valid [DEPTH];
    for (genvar s = 0; s < DEPTH; s++) begin : pipe
        if (s == 0) begin : first
            always_ff @(posedge clk or negedge rst_n) begin
                if (!rst_n) valid[s] <= 1'b0;
                else valid[s] <= in_valid;
            end
        end else begin : next
            always_ff @(posedge clk or negedge rst_n) begin
                if (!rst_n) valid[s] <= 1'b0;
                else valid[s] <= valid[s - 1];
            end
        end
    end
    assign out_valid = valid[DEPTH - 1];
endmodule
