#!/usr/bin/perl
# fake-pvmd.pl SOCKET LOG [silent|garbage]: a stand-in for a daemon that
# is not copvm's (an attacker's, or another program's), for the hardening
# tests.  Listens on unix socket SOCKET and appends to LOG "listening",
# then "connection" and "read N" for what each client sends.  "garbage"
# answers each client with bytes that are not copvm's protocol; "silent"
# (the default) never answers.  Exits after 120 s in any case.
use strict;
use warnings;
use IO::Socket::UNIX;
use IO::Handle;

my ($path, $logf, $mode) = @ARGV;
$mode //= 'silent';
alarm 120;
open(my $log, '>>', $logf) or die "fake-pvmd: $logf: $!";
$log->autoflush(1);
my $srv = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $path,
				Listen => 16) or die "fake-pvmd: $path: $!";
print $log "listening\n";
my @clients;
while (my $c = $srv->accept()) {
	print $log "connection\n";
	if ($mode eq 'garbage') {
		print $c "HTTP/1.0 400 this is not a pvmd\r\n\r\n" x 4;
		$c->flush();
	}
	my $n = sysread($c, my $buf, 65536) // 0;
	print $log "read $n\n";
	push @clients, $c;	# keep it open: a silent peer never hangs up
}
