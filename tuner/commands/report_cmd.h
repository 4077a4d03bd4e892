/* The `report` command: the HTML page of a run (htmlreport.h). */
#ifndef RATCHET_REPORT_CMD_H
#define RATCHET_REPORT_CMD_H

/* `ratchet-tune report DIR [-o FILE]`: 0, 1 if DIR cannot be read or FILE
 * written, 2 on a usage error. */
int report_main(int argc, char **argv);

#endif
