// Conversions between fp32 and the 16-bit float formats (IEEE fp16, bfloat16), round to
// nearest even, as the tensor unit's operand path does them.
#pragma once

#include <cstdint>

namespace npusim {

float fp16ToFloat(uint16_t bits);
uint16_t floatToFp16(float value);
float bf16ToFloat(uint16_t bits);
uint16_t floatToBf16(float value);

}  // namespace npusim
