// Error types shared by every layer: what went wrong, and whose fault it was.
#pragma once

#include <stdexcept>
#include <string>

namespace npusim {

/// Bad input from the user: a missing or malformed file, an unknown preset, an invalid option,
/// a model outside what the compiler supports. Command-line tools exit with code 2.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

/// A run that started but failed: a device fault, a timeout, a numerical mismatch.
/// Command-line tools exit with code 1.
class RunError : public std::runtime_error {
public:
    explicit RunError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace npusim
