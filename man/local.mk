# man: the manual pages of copvm's extensions (the stock PVM API keeps
# stock's pages, section 3PVM).  Installed by `make install' into the
# section their suffix names.  copvm_getopt.3, copvm_model_name.3 and
# copvm_backend_name.3 are .so links to copvm_setopt.3.
# tests/integ/man-lint.sh lints them all.
dist_man_MANS = \
	man/copvm.7 \
	man/copvm-cosched.1 \
	man/copvm-agent.8 \
	man/copvm_setopt.3 \
	man/pvm_indication.3 \
	man/copvm_getopt.3 \
	man/copvm_model_name.3 \
	man/copvm_backend_name.3
