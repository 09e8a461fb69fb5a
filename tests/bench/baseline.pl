#!/usr/bin/perl
# baseline.pl - what perf-tools' ftrace scripts do per trace line, written
# here as the baseline for the text parser: split off the fields with a
# regex, split key=value pairs into a hash, look two of them up.
use strict;
use warnings;
use Time::HiRes qw(clock_gettime CLOCK_PROCESS_CPUTIME_ID);

my $t0 = clock_gettime(CLOCK_PROCESS_CPUTIME_ID);
my ($lines, $events, $sum) = (0, 0, 0);
while (my $line = <>) {
	chomp $line;
	$lines++;
	my ($task, $pid, $cpu, $flags, $ts, $event, $rest) =
	    $line =~ /^\s*(.+)-(\d+)\s+\[(\d+)\]\s+(?:(\S+)\s+)?(\d+\.\d+):\s+(\S+):\s*(.*)$/
	    or next;
	$events++;
	my %f;
	for my $kv (split / /, $rest) {
		my ($k, $v) = split /=/, $kv, 2;
		$f{$k} = $v if defined $v;
	}
	$sum += $f{sport} if defined $f{sport} && $f{sport} =~ /^\d+$/;
	$sum++ if defined $f{state};
}
my $t = clock_gettime(CLOCK_PROCESS_CPUTIME_ID) - $t0;
printf "lines=%d events=%d seconds=%.3f lines_per_sec=%.0f check=%d\n",
    $lines, $events, $t, $lines / $t, $sum;
