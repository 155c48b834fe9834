// One processing element of the weight-stationary array: two weight registers (the bank rows
// stream with, and the one being preloaded), the operand passing right and the partial sum
// passing down, each with its valid flag.
module systolic_pe #(
    parameter int OPERAND_BITS = 10
) (
    input  logic clk,
    input  logic rst_n,
    // Preload into bank w_bank.
    input  logic                           w_en,
    input  logic                           w_bank,
    input  logic signed [OPERAND_BITS-1:0] w_data,
    // From the left: the operand, its valid flag and the bank it multiplies with.
    input  logic signed [OPERAND_BITS-1:0] a_in,
    input  logic                           v_in,
    input  logic                           k_in,
    // From above: the partial sum.
    input  logic signed [31:0]             p_in,
    output logic signed [OPERAND_BITS-1:0] a_out,
    output logic                           v_out,
    output logic                           k_out,
    output logic signed [31:0]             p_out,
    output logic                           pv_out
);
    logic signed [OPERAND_BITS-1:0] weight0, weight1;
    wire signed [OPERAND_BITS-1:0] weight = k_in ? weight1 : weight0;

    always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            weight0 <= '0;
            weight1 <= '0;
            a_out <= '0;
            v_out <= 1'b0;
            k_out <= 1'b0;
            p_out <= '0;
            pv_out <= 1'b0;
        end else begin
            if (w_en && !w_bank) weight0 <= w_data;
            if (w_en && w_bank) weight1 <= w_data;
            a_out <= a_in;
            v_out <= v_in;
            k_out <= k_in;
            p_out <= p_in + 32'(a_in) * 32'(weight);
            pv_out <= v_in;
        end
    end
endmodule
