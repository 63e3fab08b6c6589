#pragma once

#include <openssl/evp.h>

namespace orch::test {

/// The next unused key of a fixed pool of 2048-bit RSA keys (each handed out once per process),
/// or nullptr when the pool is used up. Generating such a key costs 50–500 ms of CPU; the unit
/// tier's test processes generated hundreds, most of the tier's time.
EVP_PKEY* TakePooledRsa2048();

}  // namespace orch::test
