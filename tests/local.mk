# Unit tests (Check) and integration tests (shell scripts).
if HAVE_CHECK
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
TEST_LIBS = lib/libpvm3.la $(CHECK_LIBS)
endif
