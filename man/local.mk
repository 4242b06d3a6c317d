# man: copvm's manual pages.  Section 3: one page name for every exported
# pvm_* call of libpvm3 and libgpvm3 (related calls share a page; the
# other names are one-line .so links to it), pvmfortran.3 for the
# Fortran binding, and copvm's extensions (copvm_setopt.3 and its links);
# section 1: pvmd and pvmgs (the console's pvm.1 is in console/); section
# 7: copvm.7; section 8: copvm-agent.8.  Installed by `make install' into
# the section their suffix names.  tests/integ/man-lint.sh lints them all
# and checks that every exported pvm_* symbol has a page.
dist_man_MANS = \
	man/copvm-agent.8 \
	man/copvm-cosched.1 \
	man/copvm.7 \
	man/copvm_backend_name.3 \
	man/copvm_getopt.3 \
	man/copvm_model_name.3 \
	man/copvm_setopt.3 \
	man/pvm_addhosts.3 \
	man/pvm_bufinfo.3 \
	man/pvm_config.3 \
	man/pvm_delhosts.3 \
	man/pvm_errlist.3 \
	man/pvm_errno.3 \
	man/pvm_exit.3 \
	man/pvm_freebuf.3 \
	man/pvm_getminfo.3 \
	man/pvm_getopt.3 \
	man/pvm_getrbuf.3 \
	man/pvm_getsbuf.3 \
	man/pvm_halt.3 \
	man/pvm_hostsync.3 \
	man/pvm_initsend.3 \
	man/pvm_kill.3 \
	man/pvm_mcast.3 \
	man/pvm_mkbuf.3 \
	man/pvm_mstat.3 \
	man/pvm_mytid.3 \
	man/pvm_nerr.3 \
	man/pvm_notify.3 \
	man/pvm_nrecv.3 \
	man/pvm_pack.3 \
	man/pvm_packf.3 \
	man/pvm_parent.3 \
	man/pvm_perror.3 \
	man/pvm_pkbyte.3 \
	man/pvm_pkcplx.3 \
	man/pvm_pkdcplx.3 \
	man/pvm_pkdouble.3 \
	man/pvm_pkfloat.3 \
	man/pvm_pkint.3 \
	man/pvm_pklong.3 \
	man/pvm_pkmesg.3 \
	man/pvm_pkmesgbody.3 \
	man/pvm_pkshort.3 \
	man/pvm_pkstr.3 \
	man/pvm_pkuint.3 \
	man/pvm_pkulong.3 \
	man/pvm_pkushort.3 \
	man/pvm_precv.3 \
	man/pvm_probe.3 \
	man/pvm_psend.3 \
	man/pvm_pstat.3 \
	man/pvm_recv.3 \
	man/pvm_send.3 \
	man/pvm_sendsig.3 \
	man/pvm_setminfo.3 \
	man/pvm_setopt.3 \
	man/pvm_setrbuf.3 \
	man/pvm_setsbuf.3 \
	man/pvm_siblings.3 \
	man/pvm_spawn.3 \
	man/pvm_strerror.3 \
	man/pvm_tasks.3 \
	man/pvm_tidtohost.3 \
	man/pvm_trecv.3 \
	man/pvm_unpackf.3 \
	man/pvm_upkbyte.3 \
	man/pvm_upkcplx.3 \
	man/pvm_upkdcplx.3 \
	man/pvm_upkdouble.3 \
	man/pvm_upkfloat.3 \
	man/pvm_upkint.3 \
	man/pvm_upklong.3 \
	man/pvm_upkmesg.3 \
	man/pvm_upkshort.3 \
	man/pvm_upkstr.3 \
	man/pvm_upkuint.3 \
	man/pvm_upkulong.3 \
	man/pvm_upkushort.3 \
	man/pvm_vpackf.3 \
	man/pvm_vunpackf.3
