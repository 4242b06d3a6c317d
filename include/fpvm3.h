c
c     fpvm3.h - constants for Fortran 77 programs that use copvm, a
c     PVM 3.4 compatible message-passing system.  Include it in every
c     program unit that calls the pvmf* routines:
c
c           include 'fpvm3.h'
c
c     The names and values are those of PVM 3.4.6, so a program compiled
c     with this file links with copvm's libfpvm3 or with PVM's, and the
c     two exchange messages.  The file holds only declarations, fits in
c     72 columns and uses no continuation lines.
c
c     The predefined reductions for pvmfreduce are routines, not
c     constants: declare the ones you pass with EXTERNAL, e.g.
c
c           external PvmSum
c
c
c     pvmfspawn flag values, added together
      integer PVMTASKDEFAULT, PVMTASKHOST, PVMTASKARCH, PVMTASKDEBUG
      integer PVMTASKTRACE, PVMMPPFRONT, PVMHOSTCOMPL
      integer PVMNOSPAWNPARENT
      parameter (PVMTASKDEFAULT   = 0)
      parameter (PVMTASKHOST      = 1)
      parameter (PVMTASKARCH      = 2)
      parameter (PVMTASKDEBUG     = 4)
      parameter (PVMTASKTRACE     = 8)
      parameter (PVMMPPFRONT      = 16)
      parameter (PVMHOSTCOMPL     = 32)
      parameter (PVMNOSPAWNPARENT = 64)
c
c     Older spellings of the same spawn flags
      integer PVMHOST, PVMARCH, PVMDEBUG, PVMTRACE
      parameter (PVMHOST  = 1)
      parameter (PVMARCH  = 2)
      parameter (PVMDEBUG = 4)
      parameter (PVMTRACE = 8)
c
c     Message encodings for pvmfinitsend and pvmfmkbuf
      integer PVMDATADEFAULT, PVMDATARAW, PVMDATAINPLACE, PVMDATATRACE
      parameter (PVMDATADEFAULT = 0)
      parameter (PVMDATARAW     = 1)
      parameter (PVMDATAINPLACE = 2)
      parameter (PVMDATATRACE   = 4)
c
c     Older spellings of the encodings
      integer PVMDEFAULT, PVMRAW, PVMINPLACE
      parameter (PVMDEFAULT = 0)
      parameter (PVMRAW     = 1)
      parameter (PVMINPLACE = 2)
c
c     Events for pvmfnotify
      integer PVMTASKEXIT, PVMHOSTDELETE, PVMHOSTADD, PVMROUTEADD
      integer PVMROUTEDELETE, PVMNOTIFYCANCEL
      parameter (PVMTASKEXIT     = 1)
      parameter (PVMHOSTDELETE   = 2)
      parameter (PVMHOSTADD      = 3)
      parameter (PVMROUTEADD     = 4)
      parameter (PVMROUTEDELETE  = 5)
      parameter (PVMNOTIFYCANCEL = 256)
c
c     Data types for pvmfpack, pvmfunpack, pvmfpsend, pvmfprecv
c     and the group reductions
      integer STRING, BYTE1, INTEGER2, INTEGER4, REAL4, COMPLEX8
      integer REAL8, COMPLEX16, INTEGER8
      parameter (STRING    = 0)
      parameter (BYTE1     = 1)
      parameter (INTEGER2  = 2)
      parameter (INTEGER4  = 3)
      parameter (REAL4     = 4)
      parameter (COMPLEX8  = 5)
      parameter (REAL8     = 6)
      parameter (COMPLEX16 = 7)
      parameter (INTEGER8  = 8)
c
c     Options for pvmfsetopt and pvmfgetopt
      integer PVMROUTE, PVMDEBUGMASK, PVMAUTOERR, PVMOUTPUTTID
      integer PVMOUTPUTCODE, PVMTRACETID, PVMTRACECODE, PVMTRACEBUFFER
      integer PVMTRACEOPTIONS, PVMFRAGSIZE, PVMRESVTIDS, PVMSOUTPUTTID
      integer PVMSOUTPUTCODE, PVMSTRACETID, PVMSTRACECODE
      integer PVMSTRACEBUFFER, PVMSTRACEOPTIONS, PVMSHOWTIDS
      integer PVMPOLLTYPE, PVMPOLLTIME, PVMOUTPUTCTX, PVMTRACECTX
      integer PVMSOUTPUTCTX, PVMSTRACECTX, PVMNORESET
      parameter (PVMROUTE         = 1)
      parameter (PVMDEBUGMASK     = 2)
      parameter (PVMAUTOERR       = 3)
      parameter (PVMOUTPUTTID     = 4)
      parameter (PVMOUTPUTCODE    = 5)
      parameter (PVMTRACETID      = 6)
      parameter (PVMTRACECODE     = 7)
      parameter (PVMTRACEBUFFER   = 8)
      parameter (PVMTRACEOPTIONS  = 9)
      parameter (PVMFRAGSIZE      = 10)
      parameter (PVMRESVTIDS      = 11)
      parameter (PVMSOUTPUTTID    = 12)
      parameter (PVMSOUTPUTCODE   = 13)
      parameter (PVMSTRACETID     = 14)
      parameter (PVMSTRACECODE    = 15)
      parameter (PVMSTRACEBUFFER  = 16)
      parameter (PVMSTRACEOPTIONS = 17)
      parameter (PVMSHOWTIDS      = 18)
      parameter (PVMPOLLTYPE      = 19)
      parameter (PVMPOLLTIME      = 20)
      parameter (PVMOUTPUTCTX     = 21)
      parameter (PVMTRACECTX      = 22)
      parameter (PVMSOUTPUTCTX    = 23)
      parameter (PVMSTRACECTX     = 24)
      parameter (PVMNORESET       = 25)
c
c     Values of the PVMTRACEOPTIONS option
      integer PVMTRACEFULL, PVMTRACETIME, PVMTRACECOUNT
      parameter (PVMTRACEFULL  = 1)
      parameter (PVMTRACETIME  = 2)
      parameter (PVMTRACECOUNT = 3)
c
c     Values of the PVMPOLLTYPE option
      integer PVMPOLLCONSTANT, PVMPOLLSLEEP
      parameter (PVMPOLLCONSTANT = 1)
      parameter (PVMPOLLSLEEP    = 2)
c
c     Mailbox flags for pvmfputinfo, pvmfrecvinfo, pvmfdelinfo
      integer PVMMBOXDEFAULT, PVMMBOXPERSISTENT, PVMMBOXMULTIINSTANCE
      integer PVMMBOXOVERWRITABLE, PVMMBOXFIRSTAVAIL
      integer PVMMBOXREADANDDELETE, PVMMBOXWAITFORINFO
      parameter (PVMMBOXDEFAULT       = 0)
      parameter (PVMMBOXPERSISTENT    = 1)
      parameter (PVMMBOXMULTIINSTANCE = 2)
      parameter (PVMMBOXOVERWRITABLE  = 4)
      parameter (PVMMBOXFIRSTAVAIL    = 8)
      parameter (PVMMBOXREADANDDELETE = 16)
      parameter (PVMMBOXWAITFORINFO   = 32)
c
c     Values of the PVMROUTE option
      integer PVMDONTROUTE, PVMALLOWDIRECT, PVMROUTEDIRECT
      parameter (PVMDONTROUTE   = 1)
      parameter (PVMALLOWDIRECT = 2)
      parameter (PVMROUTEDIRECT = 3)
c
c     Status codes: a routine that fails returns one of these in
c     its last argument (always negative)
      integer PvmOk, PvmBadParam, PvmMismatch, PvmOverflow, PvmNoData
      integer PvmNoHost, PvmNoFile, PvmDenied, PvmNoMem, PvmBadMsg
      integer PvmSysErr, PvmNoBuf, PvmNoSuchBuf, PvmNullGroup
      integer PvmDupGroup, PvmNoGroup, PvmNotInGroup, PvmNoInst
      integer PvmHostFail, PvmNoParent, PvmNotImpl, PvmDSysErr
      integer PvmBadVersion, PvmOutOfRes, PvmDupHost, PvmCantStart
      integer PvmAlready, PvmNoTask, PvmNotFound, PvmExists
      integer PvmHostrNMstr, PvmParentNotSet, PvmIPLoopback
      parameter (PvmOk           = 0)
      parameter (PvmBadParam     = -2)
      parameter (PvmMismatch     = -3)
      parameter (PvmOverflow     = -4)
      parameter (PvmNoData       = -5)
      parameter (PvmNoHost       = -6)
      parameter (PvmNoFile       = -7)
      parameter (PvmDenied       = -8)
      parameter (PvmNoMem        = -10)
      parameter (PvmBadMsg       = -12)
      parameter (PvmSysErr       = -14)
      parameter (PvmNoBuf        = -15)
      parameter (PvmNoSuchBuf    = -16)
      parameter (PvmNullGroup    = -17)
      parameter (PvmDupGroup     = -18)
      parameter (PvmNoGroup      = -19)
      parameter (PvmNotInGroup   = -20)
      parameter (PvmNoInst       = -21)
      parameter (PvmHostFail     = -22)
      parameter (PvmNoParent     = -23)
      parameter (PvmNotImpl      = -24)
      parameter (PvmDSysErr      = -25)
      parameter (PvmBadVersion   = -26)
      parameter (PvmOutOfRes     = -27)
      parameter (PvmDupHost      = -28)
      parameter (PvmCantStart    = -29)
      parameter (PvmAlready      = -30)
      parameter (PvmNoTask       = -31)
      parameter (PvmNotFound     = -32)
      parameter (PvmExists       = -33)
      parameter (PvmHostrNMstr   = -34)
      parameter (PvmParentNotSet = -35)
      parameter (PvmIPLoopback   = -36)
c
c     Old names of two mailbox status codes (note: PvmDupEntry is
c     PvmExists here, as in PVM 3.4.6's Fortran header)
      integer PvmNoEntry, PvmDupEntry
      parameter (PvmNoEntry  = -32)
      parameter (PvmDupEntry = -33)
