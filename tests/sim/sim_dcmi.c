/* Simulated libdcmi.so: exports the DCMI symbols npu-doctor uses, with the
 * signatures and struct layouts of docs/vendor-apis.md (DCMI), answering
 * from the [ascend] section of the ND_SIM_STATE file (see sim_common.h).
 * The structs are declared again here, from the reference, on purpose: a
 * header shared with src/device/ would hide a layout mistake in both. */
#include <stdio.h>
#include <string.h>

#include "sim_common.h"

#define DCMI_OK 0
#define DCMI_ERR_PARA (-8001)
#define DCMI_ERR_INNER (-8005)
#define DCMI_ERR_INVALID_ID (-8007)
#define DCMI_ERR_NO_DEVICE (-8008)
#define DCMI_ERR_NOT_SUPPORT (-8255)

struct dcmi_chip_info {
    unsigned char chip_type[32];
    unsigned char chip_name[32];
    unsigned char chip_ver[32];
    unsigned int aicore_cnt;
};

struct dcmi_hbm_info {
    unsigned long long memory_size; /* MB */
    unsigned int freq;
    unsigned long long memory_usage; /* MB */
    int temp;
    unsigned int bandwith_util_rate;
};

struct dcmi_get_memory_info_stru {
    unsigned long long memory_size;      /* MB */
    unsigned long long memory_available; /* MB */
    unsigned int freq;
    unsigned long hugepagesize; /* KB */
    unsigned long hugepages_total;
    unsigned long hugepages_free;
    unsigned int utilize;
    unsigned char reserve[60];
};

struct dcmi_proc_mem_info {
    int proc_id;
    unsigned long proc_mem_usage; /* bytes */
};

static const char S[] = "ascend";
static int sim_inited;

/* Injection for a call; dev < 0 for calls not about one device. */
#define SIM_ENTER(func, dev)                                                                                           \
    do {                                                                                                               \
        long long code_;                                                                                               \
        if (sim_inject(S, (dev), (func), &code_))                                                                      \
            return (int)code_;                                                                                         \
    } while (0)

static int sim_ndevices(void)
{
    long long n = sim_get_ll(S, -1, "devices", 0);
    return n < 0 ? 0 : n > 64 ? 64 : (int)n;
}

/* card = logic id, one chip (device 0) per card. */
static int sim_check(int card_id, int device_id)
{
    if (!sim_inited)
        return DCMI_ERR_INNER;
    if (card_id < 0 || card_id >= sim_ndevices() || device_id != 0)
        return DCMI_ERR_INVALID_ID;
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_init(void)
{
    SIM_ENTER("dcmi_init", -1);
    if (sim_ndevices() == 0)
        return DCMI_ERR_NO_DEVICE;
    sim_inited = 1;
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_driver_version(char *driver_ver, unsigned int len)
{
    SIM_ENTER("dcmi_get_driver_version", -1);
    if (!sim_inited)
        return DCMI_ERR_INNER;
    if (!driver_ver || len == 0)
        return DCMI_ERR_PARA;
    char v[128];
    sim_get_str(S, -1, "driver_version", "24.1.rc1", v, sizeof v);
    if (strlen(v) >= len)
        return DCMI_ERR_PARA;
    memcpy(driver_ver, v, strlen(v) + 1);
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_card_list(int *card_num, int *card_list, int list_len)
{
    SIM_ENTER("dcmi_get_card_list", -1);
    if (!sim_inited)
        return DCMI_ERR_INNER;
    if (!card_num || !card_list || list_len <= 0 || list_len > 64)
        return DCMI_ERR_PARA;
    int n = sim_ndevices();
    if (n > list_len)
        return DCMI_ERR_PARA;
    for (int i = 0; i < n; i++)
        card_list[i] = i;
    *card_num = n;
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_num_in_card(int card_id, int *device_num)
{
    SIM_ENTER("dcmi_get_device_num_in_card", card_id);
    int rc = sim_check(card_id, 0);
    if (rc)
        return rc;
    if (!device_num)
        return DCMI_ERR_PARA;
    *device_num = 1;
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_logic_id(int *logic_id, int card_id, int device_id)
{
    SIM_ENTER("dcmi_get_device_logic_id", card_id);
    int rc = sim_check(card_id, device_id);
    if (rc)
        return rc;
    if (!logic_id)
        return DCMI_ERR_PARA;
    *logic_id = card_id;
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *out)
{
    SIM_ENTER("dcmi_get_device_chip_info", card_id);
    int rc = sim_check(card_id, device_id);
    if (rc)
        return rc;
    if (!out)
        return DCMI_ERR_PARA;
    memset(out, 0, sizeof *out);
    sim_get_str(S, card_id, "chip_type", "Ascend", (char *)out->chip_type, sizeof out->chip_type);
    sim_get_str(S, card_id, "chip_name", "910B3", (char *)out->chip_name, sizeof out->chip_name);
    sim_get_str(S, card_id, "chip_ver", "V1", (char *)out->chip_ver, sizeof out->chip_ver);
    out->aicore_cnt = (unsigned)sim_get_ll(S, card_id, "aicore_cnt", 20);
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_health(int card_id, int device_id, unsigned int *health)
{
    SIM_ENTER("dcmi_get_device_health", card_id);
    int rc = sim_check(card_id, device_id);
    if (rc)
        return rc;
    if (!health)
        return DCMI_ERR_PARA;
    *health = (unsigned)sim_get_ll(S, card_id, "health", 0);
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type, unsigned int *rate)
{
    SIM_ENTER("dcmi_get_device_utilization_rate", card_id);
    int rc = sim_check(card_id, device_id);
    if (rc)
        return rc;
    if (!rate)
        return DCMI_ERR_PARA;
    switch (input_type) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 10:
    case 12:
    case 13: break;
    default: return DCMI_ERR_PARA;
    }
    if (input_type == 2) {
        *rate = (unsigned)sim_get_ll(S, card_id, "aicore_util", 0);
    } else {
        char key[32];
        snprintf(key, sizeof key, "util_%d", input_type);
        *rate = (unsigned)sim_get_ll(S, card_id, key, 0);
    }
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_memory_info_v3(int card_id, int device_id, struct dcmi_get_memory_info_stru *out)
{
    SIM_ENTER("dcmi_get_device_memory_info_v3", card_id);
    int rc = sim_check(card_id, device_id);
    if (rc)
        return rc;
    if (!out)
        return DCMI_ERR_PARA;
    memset(out, 0, sizeof *out);
    /* DDR where the state names it, otherwise the same memory as the HBM. */
    long long total = sim_get_ll(S, card_id, "ddr_total_mb", sim_get_ll(S, card_id, "hbm_total_mb", 0));
    long long used = sim_get_ll(S, card_id, "ddr_used_mb", sim_get_ll(S, card_id, "hbm_used_mb", 0));
    out->memory_size = (unsigned long long)total;
    out->memory_available = (unsigned long long)(total > used ? total - used : 0);
    out->freq = 1600;
    out->hugepagesize = 2048;
    out->utilize = total > 0 ? (unsigned)(used * 100 / total) : 0;
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *out)
{
    SIM_ENTER("dcmi_get_device_hbm_info", card_id);
    int rc = sim_check(card_id, device_id);
    if (rc)
        return rc;
    if (!out)
        return DCMI_ERR_PARA;
    long long total = sim_get_ll(S, card_id, "hbm_total_mb", 0);
    if (total <= 0)
        return DCMI_ERR_NOT_SUPPORT; /* chips without HBM (310 series) */
    memset(out, 0, sizeof *out);
    out->memory_size = (unsigned long long)total;
    out->memory_usage = (unsigned long long)sim_get_ll(S, card_id, "hbm_used_mb", 0);
    out->freq = 1600;
    out->temp = (int)sim_get_ll(S, card_id, "temperature", 40);
    out->bandwith_util_rate = (unsigned)sim_get_ll(S, card_id, "util_10", 0);
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_resource_info(int card_id, int device_id, struct dcmi_proc_mem_info *procs, int *proc_num)
{
    SIM_ENTER("dcmi_get_device_resource_info", card_id);
    int rc = sim_check(card_id, device_id);
    if (rc)
        return rc;
    if (!procs || !proc_num)
        return DCMI_ERR_PARA;
    struct sim_proc all[1024];
    size_t n = sim_procs(S, all, 1024);
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        if (all[i].device != card_id)
            continue;
        procs[k].proc_id = (int)all[i].pid;
        procs[k].proc_mem_usage = (unsigned long)all[i].mem_mb * 1024UL * 1024UL;
        k++;
    }
    *proc_num = k;
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_temperature(int card_id, int device_id, int *celsius)
{
    SIM_ENTER("dcmi_get_device_temperature", card_id);
    int rc = sim_check(card_id, device_id);
    if (rc)
        return rc;
    if (!celsius)
        return DCMI_ERR_PARA;
    *celsius = (int)sim_get_ll(S, card_id, "temperature", 40);
    return DCMI_OK;
}

SIM_VISIBLE int dcmi_get_device_power_info(int card_id, int device_id, int *power)
{
    SIM_ENTER("dcmi_get_device_power_info", card_id);
    int rc = sim_check(card_id, device_id);
    if (rc)
        return rc;
    if (!power)
        return DCMI_ERR_PARA;
    *power = (int)(sim_get_double(S, card_id, "power_w", 90.0) * 10.0 + 0.5); /* 0.1 W units */
    return DCMI_OK;
}
