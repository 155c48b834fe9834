// One lane of the vector unit's integer ALU: the int32 operation of the element entering this
// cycle, then DEPTH pipeline registers (the result leaves DEPTH cycles after its operands
// entered). Operation codes are the ISA's (arch/isa.h, VectorOp); add, sub and mul wrap.
module vector_lane #(
    parameter int DEPTH = 4
) (
    input  logic               clk,
    input  logic               rst_n,
    input  logic [4:0]         op,
    input  logic signed [31:0] a,
    input  logic signed [31:0] b,   // the second operand (binary ops)
    input  logic signed [31:0] lo,  // clip's bounds
    input  logic signed [31:0] hi,
    output logic signed [31:0] result
);
    localparam logic [4:0] COPY = 5'd0, ADD = 5'd1, SUB = 5'd2, MUL = 5'd3, MAX = 5'd4, MIN = 5'd5,
                           RELU = 5'd6, CLIP = 5'd8, LESS = 5'd24, EQUAL = 5'd25;

    logic signed [31:0] value;
    logic signed [31:0] raised;
    always_comb begin
        raised = a > lo ? a : lo;
        case (op)
            COPY:    value = a;
            ADD:     value = a + b;
            SUB:     value = a - b;
            MUL:     value = 32'(a * b);
            MAX:     value = a > b ? a : b;
            MIN:     value = a < b ? a : b;
            RELU:    value = a > 0 ? a : 32'sd0;
            CLIP:    value = raised < hi ? raised : hi;
            LESS:    value = a < b ? 32'sd1 : 32'sd0;
            EQUAL:   value = a == b ? 32'sd1 : 32'sd0;
            default: value = '0;
        endcase
    end

    logic signed [31:0] stage [DEPTH];
    for (genvar s = 0; s < DEPTH; s++) begin : pipe
        if (s == 0) begin : first
            always_ff @(posedge clk or negedge rst_n) begin
                if (!rst_n) stage[s] <= '0;
                else stage[s] <= value;
            end
        end else begin : next
            always_ff @(posedge clk or negedge rst_n) begin
                if (!rst_n) stage[s] <= '0;
                else stage[s] <= stage[s - 1];
            end
        end
    end
    assign result = stage[DEPTH - 1];
endmodule
