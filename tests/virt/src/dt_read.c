/* dt_read: walks the flattened device tree whose address the reset ROM (or a
 * firmware) passes in a1, with its own minimal FDT parser (header magic
 * 0xd00dfeed big-endian; structure block tokens FDT_BEGIN_NODE, FDT_END_NODE,
 * FDT_PROP, FDT_NOP, FDT_END; property names from the strings block).
 *
 * Prints (values as QEMU 7.2 `-M virt -m 128M -smp 1` without -append):
 *   dt_read on rvXX
 *   hartid: 0                                       (a0)
 *   fdt: magic ok
 *   /cpus timebase-frequency: 10000000
 *   cpu nodes: 1                                    (/cpus/cpu@* nodes)
 *   /memory@80000000 reg: <0x0 0x80000000 0x0 0x8000000>
 *   /soc/serial@10000000 compatible: "ns16550a"
 *   /soc/serial@10000000 clock-frequency: 3686400
 *   /soc/serial@10000000 interrupts: <0xa>
 *   /chosen stdout-path: "/soc/serial@10000000"
 *   bootargs: none                                  (or /chosen bootargs: "...")
 *   poweroff value: 0x5555                          (node compatible "syscon-poweroff")
 *   reboot value: 0x7777                            (node compatible "syscon-reboot")
 * A property that is absent prints "<path> <name>: missing". riscv,isa is
 * not printed (QEMU's includes extensions such as h that another tree may
 * not list). Status: 0; 2 if the magic is wrong or a printed item other than
 * bootargs is missing.
 */
#include "virt.h"

#define FDT_BEGIN_NODE 1
#define FDT_END_NODE 2
#define FDT_PROP 3
#define FDT_NOP 4
#define FDT_END 9

static uint32_t be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int str_eq(const char *a, const char *b)
{
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

static int str_starts(const char *s, const char *prefix)
{
  while (*prefix)
    if (*s++ != *prefix++)
      return 0;
  return 1;
}

static unsigned str_len(const char *s)
{
  unsigned n = 0;
  while (s[n])
    n++;
  return n;
}

/* a stringlist property contains s as one of its strings */
static int strlist_has(const uint8_t *v, uint32_t len, const char *s)
{
  uint32_t i = 0;
  while (i < len) {
    const char *e = (const char *)v + i;
    if (str_eq(e, s))
      return 1;
    i += str_len(e) + 1;
  }
  return 0;
}

struct prop {
  const uint8_t *val;
  uint32_t len;
  int found;
};

static struct prop timebase, mem_reg, ser_compat, ser_clock, ser_irqs, stdout_path, bootargs;
static struct prop poweroff_value, reboot_value;
static unsigned cpu_nodes;

/* per-depth state for the poweroff/reboot nodes: their properties come before
 * any child node, so all are known at FDT_END_NODE */
#define MAX_DEPTH 16
static struct {
  int kind; /* 1 poweroff, 2 reboot */
  struct prop value;
} node[MAX_DEPTH];

static void print_cells(const struct prop *p)
{
  uart_puts("<");
  for (uint32_t i = 0; i + 4 <= p->len; i += 4) {
    if (i)
      uart_puts(" ");
    uart_put_hex(be32(p->val + i));
  }
  uart_puts(">");
}

static void print_strings(const struct prop *p)
{
  uint32_t i = 0;
  while (i < p->len) {
    const char *s = (const char *)p->val + i;
    if (i)
      uart_puts(", ");
    uart_puts("\"");
    uart_puts(s);
    uart_puts("\"");
    i += str_len(s) + 1;
  }
}

static unsigned long prop_uint(const struct prop *p)
{
  if (p->len == 8) /* a 64-bit value: print its low word (rv32 longs) */
    return be32(p->val + 4);
  return p->len >= 4 ? be32(p->val) : 0;
}

static int missing;

static int report(const char *label, const struct prop *p)
{
  uart_puts(label);
  if (!p->found) {
    uart_puts(": missing\n");
    missing++;
    return 0;
  }
  uart_puts(": ");
  return 1;
}

static int walk(const uint8_t *fdt)
{
  uint32_t totalsize = be32(fdt + 4);
  uint32_t off_struct = be32(fdt + 8);
  uint32_t off_strings = be32(fdt + 12);
  uint32_t size_struct = be32(fdt + 36);
  const uint8_t *p = fdt + off_struct;
  const uint8_t *end = p + size_struct;
  const char *strings = (const char *)fdt + off_strings;
  char path[256];
  unsigned path_len[MAX_DEPTH + 1];
  int depth = 0; /* nodes open */

  if (off_struct >= totalsize || off_strings >= totalsize || off_struct + size_struct > totalsize) {
    uart_puts("fdt: bad header\n");
    return -1;
  }
  path[0] = 0;
  path_len[0] = 0;
  while (p + 4 <= end) {
    uint32_t tok = be32(p);
    p += 4;
    if (tok == FDT_BEGIN_NODE) {
      const char *name = (const char *)p;
      unsigned n = str_len(name);
      p += (n + 1 + 3) & ~3u;
      if (depth >= MAX_DEPTH) {
        uart_puts("fdt: too deep\n");
        return -1;
      }
      /* parent path is path[0 .. path_len[depth]) */
      if (str_eq(path, "/cpus") && str_starts(name, "cpu@"))
        cpu_nodes++;
      unsigned l = path_len[depth];
      if (depth > 0) { /* the root's name is "", its path "" (printed "/") */
        if (l + 1 + n + 1 > sizeof path) {
          uart_puts("fdt: path too long\n");
          return -1;
        }
        path[l++] = '/';
        memcpy(path + l, name, n);
        l += n;
      }
      path[l] = 0;
      depth++;
      path_len[depth] = l;
      node[depth].kind = 0;
      node[depth].value.found = 0;
    } else if (tok == FDT_END_NODE) {
      if (depth == 0) {
        uart_puts("fdt: unbalanced END_NODE\n");
        return -1;
      }
      if (node[depth].kind == 1 && node[depth].value.found)
        poweroff_value = node[depth].value;
      if (node[depth].kind == 2 && node[depth].value.found)
        reboot_value = node[depth].value;
      depth--;
      path[path_len[depth]] = 0;
    } else if (tok == FDT_PROP) {
      struct prop pr;
      pr.len = be32(p);
      const char *name = strings + be32(p + 4);
      pr.val = p + 8;
      pr.found = 1;
      p += 8 + ((pr.len + 3) & ~3u);
      if (str_eq(path, "/cpus") && str_eq(name, "timebase-frequency"))
        timebase = pr;
      else if (str_eq(path, "/memory@80000000") && str_eq(name, "reg"))
        mem_reg = pr;
      else if (str_eq(path, "/soc/serial@10000000")) {
        if (str_eq(name, "compatible"))
          ser_compat = pr;
        else if (str_eq(name, "clock-frequency"))
          ser_clock = pr;
        else if (str_eq(name, "interrupts"))
          ser_irqs = pr;
      } else if (str_eq(path, "/chosen")) {
        if (str_eq(name, "stdout-path"))
          stdout_path = pr;
        else if (str_eq(name, "bootargs"))
          bootargs = pr;
      }
      if (str_eq(name, "compatible")) {
        if (strlist_has(pr.val, pr.len, "syscon-poweroff"))
          node[depth].kind = 1;
        else if (strlist_has(pr.val, pr.len, "syscon-reboot"))
          node[depth].kind = 2;
      } else if (str_eq(name, "value")) {
        node[depth].value = pr;
      }
    } else if (tok == FDT_NOP) {
    } else if (tok == FDT_END) {
      return 0;
    } else {
      uart_puts("fdt: bad token ");
      uart_put_hex(tok);
      uart_puts("\n");
      return -1;
    }
  }
  uart_puts("fdt: no FDT_END\n");
  return -1;
}

int main(reg_t hartid, reg_t dtb, reg_t entry_pc)
{
  const uint8_t *fdt = (const uint8_t *)dtb;
  (void)entry_pc;
  uart_puts("dt_read on rv");
  uart_put_dec(__riscv_xlen);
  uart_puts("\nhartid: ");
  uart_put_dec(hartid);
  uart_puts("\n");
  if (!fdt || (dtb & 3) || be32(fdt) != FDT_MAGIC) {
    uart_puts("fdt: bad magic at a1=");
    uart_put_hex(dtb);
    uart_puts("\n");
    return 2;
  }
  uart_puts("fdt: magic ok\n");
  if (walk(fdt))
    return 2;

  if (report("/cpus timebase-frequency", &timebase)) {
    uart_put_dec(prop_uint(&timebase));
    uart_puts("\n");
  }
  uart_puts("cpu nodes: ");
  uart_put_dec(cpu_nodes);
  uart_puts("\n");
  if (!cpu_nodes)
    missing++;
  if (report("/memory@80000000 reg", &mem_reg)) {
    print_cells(&mem_reg);
    uart_puts("\n");
  }
  if (report("/soc/serial@10000000 compatible", &ser_compat)) {
    print_strings(&ser_compat);
    uart_puts("\n");
  }
  if (report("/soc/serial@10000000 clock-frequency", &ser_clock)) {
    uart_put_dec(prop_uint(&ser_clock));
    uart_puts("\n");
  }
  if (report("/soc/serial@10000000 interrupts", &ser_irqs)) {
    print_cells(&ser_irqs);
    uart_puts("\n");
  }
  if (report("/chosen stdout-path", &stdout_path)) {
    print_strings(&stdout_path);
    uart_puts("\n");
  }
  if (bootargs.found) {
    uart_puts("/chosen bootargs: ");
    print_strings(&bootargs);
    uart_puts("\n");
  } else {
    uart_puts("bootargs: none\n");
  }
  if (report("poweroff value", &poweroff_value)) {
    uart_put_hex(prop_uint(&poweroff_value));
    uart_puts("\n");
  }
  if (report("reboot value", &reboot_value)) {
    uart_put_hex(prop_uint(&reboot_value));
    uart_puts("\n");
  }
  return missing ? 2 : 0;
}
