/*
 * swift_demangle_stub.so: preloaded with the ASan runtime into hosts that are not instrumented
 * (tests/lib/sanitize.sh), so that ASan can start inside PostgreSQL.
 *
 * A host that is not instrumented starts the runtime late: at its first malloc, which may come
 * from another library's constructor before the runtime's own. PostgreSQL links libgpg-error and
 * libgnutls (through libldap and libsystemd), whose constructors call bindtextdomain(); that
 * allocates while holding glibc's _nl_state_lock for writing, so ASan initializes inside it. On
 * its way, ASan looks up the optional swift_demangle with dlsym() and clears the failure with
 * dlerror(), which translates the message: dcgettext() takes and releases the same lock as a
 * reader. The lock's reader count goes below zero, and the next bindtextdomain() (PostgreSQL's
 * own, in set_pglocale_pgservice) waits for it forever: `postgres -V` hangs.
 *
 * With this symbol present the dlsym() succeeds and dlerror() has nothing to translate. ASan
 * calls it only to demangle Swift names (there are none here); returning NULL makes it print
 * the name as it is.
 */
#include <stddef.h>
#include <stdint.h>

char* swift_demangle(const char* mangled_name, size_t mangled_name_length, char* output_buffer,
                     size_t* output_buffer_size, uint32_t flags) {
  (void)mangled_name;
  (void)mangled_name_length;
  (void)output_buffer;
  (void)output_buffer_size;
  (void)flags;
  return NULL;
}
