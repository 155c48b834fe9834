// .npy header parsing and writing.
#include "cli/npy.h"

#include <cstring>
#include <iterator>
#include <regex>

#include "arch/error.h"
#include "arch/read_file.h"

namespace npusim::cli {
namespace {

struct Descr {
    const char* text;
    DType dtype;
};

constexpr Descr kDescrs[] = {{"<f4", DType::Fp32}, {"|i1", DType::Int8}, {"|u1", DType::UInt8},
                             {"<i4", DType::Int32}, {"<i8", DType::Int64}, {"<f2", DType::Fp16},
                             {"|b1", DType::Bool}};

std::string descrOf(DType dtype) {
    for (const Descr& d : kDescrs) {
        if (d.dtype == dtype) return d.text;
    }
    throw RunError(".npy cannot hold " + std::string(dtypeName(dtype)));
}

}  // namespace

Tensor readNpy(const std::filesystem::path& path, DType expected) {
    const std::string bytes = readWholeFile(path);
    auto fail = [&](const std::string& what) { return InputError("'" + path.string() + "': " + what); };
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw fail("not a .npy file");
    const int major = static_cast<unsigned char>(bytes[6]);
    size_t headerLength = 0, headerStart = 0;
    if (major == 1) {
        headerLength = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) throw fail("truncated header");
        for (int i = 0; i < 4; ++i) headerLength |= size_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
        headerStart = 12;
    } else {
        throw fail("unsupported .npy version " + std::to_string(major));
    }
    if (headerStart + headerLength > bytes.size()) throw fail("truncated header");
    const std::string header = bytes.substr(headerStart, headerLength);

    std::smatch match;
    if (!std::regex_search(header, match, std::regex(R"('descr'\s*:\s*'([^']*)')"))) throw fail("header has no descr");
    const std::string descr = match[1];
    Tensor tensor;
    bool known = false;
    for (const Descr& d : kDescrs) {
        if (descr == d.text) {
            tensor.dtype = d.dtype;
            known = true;
        }
    }
    if (!known) {
        std::string wanted(dtypeName(expected));
        for (const Descr& d : kDescrs) {
            if (d.dtype == expected) wanted += " (numpy '" + std::string(d.text) + "')";
        }
        throw fail("element type '" + descr + "' is not one npusim reads: expected " + wanted);
    }
    if (std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)"))) {
        throw fail("Fortran-order arrays are not supported; save with np.ascontiguousarray");
    }
    if (!std::regex_search(header, match, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) throw fail("header has no shape");
    const std::string dims = match[1];
    const std::regex number(R"(\d+)");
    const size_t dataStart = headerStart + headerLength;
    const uint64_t available = bytes.size() - dataStart;
    int64_t elements = 1;  // multiplied in order, as elementCount does: it must not overflow
    for (std::sregex_iterator it(dims.begin(), dims.end(), number), end; it != end; ++it) {
        const std::string digits = it->str();
        const int64_t dim = digits.size() > 18 ? -1 : std::stoll(digits);
        if (dim < 0 || __builtin_mul_overflow(elements, dim, &elements)) {
            throw fail("shape (" + dims.substr(0, 80) + ") has too many elements");
        }
        tensor.shape.push_back(dim);
    }
    const uint64_t size = dtypeSize(tensor.dtype);
    if (available % size != 0 || available / size != static_cast<uint64_t>(elements)) {
        throw fail("holds " + std::to_string(available) + " data bytes, shape " + shapeString(tensor.shape) + " needs " +
                   std::to_string(elements) + " elements of " + std::to_string(size) + " bytes");
    }
    tensor.bytes.resize(available);
    if (available) std::memcpy(tensor.bytes.data(), bytes.data() + dataStart, available);
    return tensor;
}

std::string npyBytes(const Tensor& tensor) {
    // Python tuple syntax: "()", "(5,)", "(2, 3)".
    std::string shape = "(";
    for (size_t i = 0; i < tensor.shape.size(); ++i) {
        if (i) shape += ", ";
        shape += std::to_string(tensor.shape[i]);
    }
    shape += tensor.shape.size() == 1 ? ",)" : ")";
    std::string header = "{'descr': '" + descrOf(tensor.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
    const size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string file = "\x93NUMPY";
    file += '\x01';
    file += '\x00';
    file += static_cast<char>(header.size() & 0xff);
    file += static_cast<char>(header.size() >> 8);
    file += header;
    file.append(reinterpret_cast<const char*>(tensor.bytes.data()), tensor.bytes.size());
    return file;
}

}  // namespace npusim::cli
