/* The `status` command: where a tuning run stands (report.h's table, and
 * verify's verdict when there is one). */
#ifndef RATCHET_STATUS_H
#define RATCHET_STATUS_H

/* `ratchet-tune status DIR`: 0, 2 on a usage error, 1 if DIR is not readable. */
int status_main(int argc, char **argv);

#endif
