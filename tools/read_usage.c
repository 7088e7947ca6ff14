// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* ivring-read --help and ivring-read record --help. */
#include <stdbool.h>
#include <stdio.h>

#include "read_usage.h"

static const char text_head[] =
"usage: ivring-read [options] /dev/shm/NAME | NAME\n"
"       ivring-read -f [options] SEGMENT... | --watch DIR\n"
"       ivring-read record [-o FILE.dat | --ctf DIR] [options] /dev/shm/NAME\n"
"Print the trace events of an ivring segment, as trace-cmd report does.\n"
"By default the events read are consumed: the guest may reuse their space.\n"
"\n"
"  -f, --follow          keep reading new events until Ctrl-C or SIGTERM;\n"
"                        follows the segment across guest reboots\n"
"  -e, --event SYS:EVENT print only these events; SYS:*, EVENT, SYS or *\n"
"                        also match; repeatable\n"
"  -C, --cpu LIST        read only these CPUs: N, N-M, comma-separated;\n"
"                        repeatable\n"
"  -o, --output FILE     write the events to FILE instead of stdout\n"
"  -p, --peek            snapshot: consume nothing, write nothing to the\n"
"                        segment (implied when the file is read-only)\n"
"  -s, --stats           at the end, print per-CPU statistics to stderr in\n"
"                        the wording of tracefs per_cpu/cpuN/stats, and\n"
"                        the host/guest clock offset, drift and bound\n"
"      --clock CLOCK     print times of this clock: guest (default), host\n"
"                        (the host's CLOCK_MONOTONIC) or realtime (its\n"
"                        CLOCK_REALTIME), asking the guest for its clock\n"
"                        through the segment every second\n"
"      --clock-bound     with a host CLOCK, begin each event's line with\n"
"                        how far off its time may be, in microseconds\n";

static const char rec_head[] =
"usage: ivring-read record [options] /dev/shm/NAME | NAME\n"
"       ivring-read record -o DIR | --ctf DIR [options] SEGMENT... | --watch DIR\n"
"Record the guest's events into a file that trace-cmd report, KernelShark,\n"
"babeltrace2 or Trace Compass opens, copying whole pages and decoding\n"
"nothing.  The pages recorded are consumed, as ivring-read's are.\n"
"\n"
"  -o, --output FILE     write trace-cmd's trace.dat to FILE (default\n"
"                        trace.dat); until the end, FILE.tmp holds it, or\n"
"                        with --follow or -V 6 FILE.cpuN hold its data\n"
"  -V, --file-version N  trace.dat version 6 or 7 (default 7; Trace Compass\n"
"                        reads only 6)\n"
"      --ctf DIR         write a CTF 1.8 trace into DIR instead\n"
"      --any-dir         take an existing --ctf DIR, or the DIR of many\n"
"                        segments, that another user owns or others may\n"
"                        write to (refused otherwise: they could change\n"
"                        the recording under the recorder)\n"
"  -N, --name NAME       the guest's name in the file (default: the\n"
"                        segment's)\n"
"      --host FILE       record the host's own scheduler (and KVM) events\n"
"                        too, into the trace.dat FILE, linked to the\n"
"                        guests' files (trace-cmd report -i FILE -i\n"
"                        GUEST.dat), or with --ctf into the CTF directory\n"
"                        FILE (babeltrace2 GUEST FILE); needs root and -f,\n"
"                        and implies --clock host\n"
"  -f, --follow          keep recording until Ctrl-C or SIGTERM; a guest\n"
"                        reboot starts a new file (FILE-1, FILE-2...)\n"
"  -p, --peek            snapshot: consume nothing\n"
"  -q, --quiet           no progress line\n"
"  -s, --stats           at the end, per-CPU statistics on stderr, as\n"
"                        ivring-read --stats prints them (with --clock\n"
"                        host, the clock's lines too)\n"
"      --clock host      put host times in the trace.dat: the guest's clock\n"
"                        samples go in trace-cmd's TIME_SHIFT option, and\n"
"                        trace-cmd report shows the host's CLOCK_MONOTONIC\n"
"                        (and merges the file with a host trace recorded\n"
"                        with trace-cmd record -C mono); in a CTF trace,\n"
"                        the clock becomes the host's CLOCK_REALTIME, so\n"
"                        that babeltrace2 merges guests and host traces\n";

/* What both modes take alike, and the hand-over of a live migration. */
static const char shared[] =
"      --checkpoint FILE when the reader ends, save where it stopped to\n"
"                        FILE, for the --resume of a reader of a copy of\n"
"                        the segment (a live migration's destination)\n"
"      --resume FILE     start where the checkpoint FILE says, not where\n"
"                        the segment's host area says; with --follow, wait\n"
"                        for FILE to appear first\n"
"      --watch DIR       serve every segment in DIR, those that appear\n"
"                        later too (implies --follow)\n"
"      --match GLOB      with --watch, only files whose name matches GLOB\n"
"                        (default ivring*)\n"
"      --owner USER      with --watch, read USER's files too; others' are\n"
"                        left alone, but root's and this user's\n"
"      --max-guests N    serve at most N guests at once (default 1024)\n"
"      --threads N       reader threads serving the guests (default: the\n"
"                        CPUs online)\n"
"      --stats-interval N  every N seconds, one line per guest on stderr\n"
"                        (SIGUSR2 prints them at any time)\n"
"  -h, --help            this text\n"
"\n"
"Live migration: SIGUSR1 makes a reader read what the segment holds and\n"
"end, as Ctrl-C does after that.  Send it to the source host's reader once\n"
"the migration completed; its --checkpoint then lets the destination's\n"
"reader (--resume) deliver every event that the source's did not, and\n"
"none twice.  See ivring-read(1), LIVE MIGRATION.\n"
"\n";

static const char text_tail[] =
"Many segments (several named, or --watch): one process serves every\n"
"guest, each line prefixed with its guest's name (the segment's file\n"
"name); a guest's lines are in time order, different guests' are not\n"
"merged.  A segment that fails a check, or whose file is truncated, is\n"
"reported and skipped; the others read on.  -e, -C and the hand-over\n"
"options are for one segment.  See ivring-read(1), MANY GUESTS.\n"
"\n"
"ivring-read record writes a trace.dat or a CTF trace instead of text,\n"
"copying pages and decoding nothing: see ivring-read record --help.\n"
"\n"
"A line \"CPU:N [LOST K EVENTS]\" precedes the first event read after K\n"
"events of CPU N were lost.  At the end, a summary goes to stderr.\n"
"Events are consumed only once their lines are written out, so a reader\n"
"that is stopped or killed loses none: the next one prints from there.\n"
"One consuming reader per segment; a second one fails (use --peek).\n"
"A first Ctrl-C ends the reader cleanly; a second one, while output is\n"
"stalled, kills it.\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  runtime error (missing file, permission, I/O, out of memory)\n"
"  2  usage error (bad option, CPU or event that the segment does not have)\n"
"  3  not a usable ivring segment: no magic, unsupported ABI, truncated or\n"
"     inconsistent layout\n";

static const char rec_tail[] =
"Many segments (several named, or --watch): one process records every\n"
"guest, each into DIR/NAME.dat (or the CTF directory DIR/NAME), NAME its\n"
"segment's file name.  A segment that fails a check, or whose file is\n"
"truncated, is reported and skipped; the others record on.\n"
"\n"
"Without --follow, it records what the segment holds now (at most as\n"
"many pages per CPU as the segment has sub-buffers) and stops.\n"
"On a terminal, a progress line shows events, megabytes, lost events and\n"
"the rate.  Events lost in the guest are marked in the pages as the\n"
"kernel marks them: trace-cmd report shows them as [N EVENTS DROPPED].\n"
"Exit status as ivring-read's.\n";

void read_usage(bool record, FILE *f)
{
	fputs(record ? rec_head : text_head, f);
	fputs(shared, f);
	fputs(record ? rec_tail : text_tail, f);
}
