/**
 * Names of the NetFlow v9 field types (RFC 3954 §8, with the later Cisco additions 80–89 that exporters such as
 * softflowd send), keyed by type id. A type id missing here is shown as `type_<id>`.
 */
export const NETFLOW_FIELD_TYPES: ReadonlyMap<number, string> = new Map<number, string>([
  [1, 'IN_BYTES'],
  [2, 'IN_PKTS'],
  [3, 'FLOWS'],
  [4, 'PROTOCOL'],
  [5, 'SRC_TOS'],
  [6, 'TCP_FLAGS'],
  [7, 'L4_SRC_PORT'],
  [8, 'IPV4_SRC_ADDR'],
  [9, 'SRC_MASK'],
  [10, 'INPUT_SNMP'],
  [11, 'L4_DST_PORT'],
  [12, 'IPV4_DST_ADDR'],
  [13, 'DST_MASK'],
  [14, 'OUTPUT_SNMP'],
  [15, 'IPV4_NEXT_HOP'],
  [16, 'SRC_AS'],
  [17, 'DST_AS'],
  [18, 'BGP_IPV4_NEXT_HOP'],
  [19, 'MUL_DST_PKTS'],
  [20, 'MUL_DST_BYTES'],
  [21, 'LAST_SWITCHED'],
  [22, 'FIRST_SWITCHED'],
  [23, 'OUT_BYTES'],
  [24, 'OUT_PKTS'],
  [25, 'MIN_PKT_LNGTH'],
  [26, 'MAX_PKT_LNGTH'],
  [27, 'IPV6_SRC_ADDR'],
  [28, 'IPV6_DST_ADDR'],
  [29, 'IPV6_SRC_MASK'],
  [30, 'IPV6_DST_MASK'],
  [31, 'IPV6_FLOW_LABEL'],
  [32, 'ICMP_TYPE'],
  [33, 'MUL_IGMP_TYPE'],
  [34, 'SAMPLING_INTERVAL'],
  [35, 'SAMPLING_ALGORITHM'],
  [36, 'FLOW_ACTIVE_TIMEOUT'],
  [37, 'FLOW_INACTIVE_TIMEOUT'],
  [38, 'ENGINE_TYPE'],
  [39, 'ENGINE_ID'],
  [40, 'TOTAL_BYTES_EXP'],
  [41, 'TOTAL_PKTS_EXP'],
  [42, 'TOTAL_FLOWS_EXP'],
  [44, 'IPV4_SRC_PREFIX'],
  [45, 'IPV4_DST_PREFIX'],
  [46, 'MPLS_TOP_LABEL_TYPE'],
  [47, 'MPLS_TOP_LABEL_IP_ADDR'],
  [48, 'FLOW_SAMPLER_ID'],
  [49, 'FLOW_SAMPLER_MODE'],
  [50, 'FLOW_SAMPLER_RANDOM_INTERVAL'],
  [52, 'MIN_TTL'],
  [53, 'MAX_TTL'],
  [54, 'IPV4_IDENT'],
  [55, 'DST_TOS'],
  [56, 'IN_SRC_MAC'],
  [57, 'OUT_DST_MAC'],
  [58, 'SRC_VLAN'],
  [59, 'DST_VLAN'],
  [60, 'IP_PROTOCOL_VERSION'],
  [61, 'DIRECTION'],
  [62, 'IPV6_NEXT_HOP'],
  [63, 'BPG_IPV6_NEXT_HOP'],
  [64, 'IPV6_OPTION_HEADERS'],
  [70, 'MPLS_LABEL_1'],
  [71, 'MPLS_LABEL_2'],
  [72, 'MPLS_LABEL_3'],
  [73, 'MPLS_LABEL_4'],
  [74, 'MPLS_LABEL_5'],
  [75, 'MPLS_LABEL_6'],
  [76, 'MPLS_LABEL_7'],
  [77, 'MPLS_LABEL_8'],
  [78, 'MPLS_LABEL_9'],
  [79, 'MPLS_LABEL_10'],
  [80, 'IN_DST_MAC'],
  [81, 'OUT_SRC_MAC'],
  [82, 'IF_NAME'],
  [83, 'IF_DESC'],
  [84, 'SAMPLER_NAME'],
  [85, 'IN_PERMANENT_BYTES'],
  [86, 'IN_PERMANENT_PKTS'],
  [88, 'FRAGMENT_OFFSET'],
  [89, 'FORWARDING_STATUS'],
]);

/** Names of the scope field types of an options template (RFC 3954 §6.1). */
export const NETFLOW_SCOPE_TYPES: ReadonlyMap<number, string> = new Map<number, string>([
  [1, 'SCOPE_SYSTEM'],
  [2, 'SCOPE_INTERFACE'],
  [3, 'SCOPE_LINE_CARD'],
  [4, 'SCOPE_CACHE'],
  [5, 'SCOPE_TEMPLATE'],
]);

/** Counters: unsigned integers of any width up to 8 bytes, given as exact DECIMAL text. */
export const COUNTER_TYPES: ReadonlySet<number> = new Set([1, 2, 3, 19, 20, 23, 24, 40, 41, 42, 85, 86]);
/** IPv4 addresses, given as dotted strings. */
export const IPV4_TYPES: ReadonlySet<number> = new Set([8, 12, 15, 18, 44, 45, 47]);
/** IPv6 addresses, given in RFC 5952 text form. */
export const IPV6_TYPES: ReadonlySet<number> = new Set([27, 28, 62, 63]);
/** MAC addresses, given as `AA:BB:CC:DD:EE:FF`. */
export const MAC_TYPES: ReadonlySet<number> = new Set([56, 57, 80, 81]);
/** Names, given as UTF-8 text without trailing NULs. */
export const NAME_TYPES: ReadonlySet<number> = new Set([82, 83, 84]);
