/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rnic hardware interface: the device's datasheet in C.
 *
 * Shared by the QEMU device model (hw-rnic/), the Linux driver
 * (guest-driver/) and the rdma-core provider (provider/).  Every structure is
 * little-endian, naturally aligned and has a fixed size checked below; the
 * prose description is docs/hardware-interface.md.  Changes are additive only:
 * new fields take reserved space, new registers and opcodes take new numbers.
 */
#ifndef RNIC_HW_H
#define RNIC_HW_H

/*
 * __u8/__le16/__le32/__le64: the driver and the provider take them from
 * <linux/types.h> (sparse checks the endianness there).  The device model
 * builds with RNIC_HW_PORTABLE_TYPES and gets the same plain unsigned
 * integers, holding little-endian values, without Linux headers on any host.
 * The base types match Linux's exactly, so a file may include both.
 */
#ifdef RNIC_HW_PORTABLE_TYPES
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef __u16 __le16;
typedef __u32 __le32;
typedef __u64 __le64;
#else
#include <linux/types.h>
#endif
#ifdef __KERNEL__
#include <linux/build_bug.h>
#define RNIC_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define RNIC_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#define RNIC_ASSERT_SIZE(type, size) \
	RNIC_STATIC_ASSERT(sizeof(type) == (size), #type " must be " #size " bytes")

/* ------------------------------------------------------------------ */
/* PCI identity                                                        */
/* ------------------------------------------------------------------ */

/*
 * 1af4:10f0..10ff is QEMU's range "available for experimental usage without
 * registration" (QEMU docs/specs/pci-ids.rst).  rnic uses 1af4:10f5 while it
 * is a lab device; shipping it outside the lab needs an officially assigned ID.
 */
#define RNIC_PCI_VENDOR_ID		0x1af4
#define RNIC_PCI_DEVICE_ID		0x10f5
#define RNIC_PCI_SUBSYS_VENDOR_ID	0x1af4
#define RNIC_PCI_SUBSYS_ID		0x1100	/* QEMU-emulated hardware */
#define RNIC_PCI_REVISION		0x01
#define RNIC_PCI_CLASS			0x020000	/* Ethernet controller */

#define RNIC_BAR_REGS		0	/* 64-bit MMIO, RNIC_REGS_SIZE bytes */
#define RNIC_BAR_DOORBELL	2	/* 64-bit MMIO, doorbell pages */
#define RNIC_BAR_MSIX		4	/* 64-bit MMIO, MSI-X table + PBA */

#define RNIC_REGS_SIZE		0x1000
#define RNIC_DB_PAGE_SHIFT	12
#define RNIC_DB_PAGE_SIZE	(1u << RNIC_DB_PAGE_SHIFT)

/* Version of this interface: major changes break drivers, minor add. */
#define RNIC_HW_VERSION_MAJOR	1
#define RNIC_HW_VERSION_MINOR	0
#define RNIC_HW_VERSION		((RNIC_HW_VERSION_MAJOR << 16) | RNIC_HW_VERSION_MINOR)
#define RNIC_MAGIC		0x43494e52	/* "RNIC" read as a LE u32 */

/* Queue memory is always made of 4 KiB pages. */
#define RNIC_PAGE_SHIFT		12
#define RNIC_PAGE_SIZE		(1u << RNIC_PAGE_SHIFT)

/* ------------------------------------------------------------------ */
/* BAR0 registers: all 32-bit, little-endian, 4-byte accesses only     */
/* ------------------------------------------------------------------ */

#define RNIC_REG_MAGIC		0x000	/* RO RNIC_MAGIC */
#define RNIC_REG_VERSION	0x004	/* RO RNIC_HW_VERSION */
#define RNIC_REG_DEV_CTRL	0x008	/* RW RNIC_CTRL_* */
#define RNIC_REG_DEV_STATUS	0x00c	/* RO RNIC_STATUS_* */
#define RNIC_REG_DEV_ERROR	0x010	/* RO RNIC_DEVERR_* when STATUS_FATAL */
#define RNIC_REG_MAC_LO		0x014	/* RO permanent MAC bytes 0..3 */
#define RNIC_REG_MAC_HI		0x018	/* RO permanent MAC bytes 4..5 */
#define RNIC_REG_FEATURES	0x01c	/* RO RNIC_FEAT_* */

/* Capabilities (RO).  Object numbers run from 0 to MAX_x - 1. */
#define RNIC_REG_MAX_QP		0x040
#define RNIC_REG_MAX_CQ		0x044
#define RNIC_REG_MAX_MR		0x048	/* STag indices */
#define RNIC_REG_MAX_PD		0x04c
#define RNIC_REG_MAX_SRQ	0x050
#define RNIC_REG_MAX_EQ		0x054	/* EQ numbers 1..MAX_EQ (0 is admin) */
#define RNIC_REG_MAX_UCTX	0x058	/* user doorbell pages 1..MAX_UCTX */
#define RNIC_REG_MAX_SEND_SGE	0x05c
#define RNIC_REG_MAX_RECV_SGE	0x060
#define RNIC_REG_MAX_INLINE	0x064	/* bytes */
#define RNIC_REG_MAX_IRD	0x068
#define RNIC_REG_MAX_ORD	0x06c
#define RNIC_REG_MAX_QP_WR	0x070	/* entries per SQ/RQ (power of 2) */
#define RNIC_REG_MAX_CQE	0x074	/* entries per CQ (power of 2) */
#define RNIC_REG_MAX_SRQ_WR	0x078	/* entries per SRQ (power of 2) */
#define RNIC_REG_PAGE_SIZES	0x07c	/* bit n set: MR pages of 2^n bytes */
#define RNIC_REG_MIN_MTU	0x080	/* IP MTU, bytes */
#define RNIC_REG_MAX_MTU	0x084	/* IP MTU, bytes (1500..65000) */
#define RNIC_REG_MAX_MR_SIZE_LO	0x088
#define RNIC_REG_MAX_MR_SIZE_HI	0x08c
#define RNIC_REG_MAX_MR_PAGES	0x090	/* page-list entries per MR */
#define RNIC_REG_MAX_L2Q	0x094	/* TX queues and RX queues, each */
#define RNIC_REG_MAX_L2Q_DEPTH	0x098	/* descriptors per L2 ring */
#define RNIC_REG_MAX_ADMQ_DEPTH	0x09c
#define RNIC_REG_MAX_EQ_DEPTH	0x0a0
#define RNIC_REG_MAX_LISTEN	0x0a4	/* offloaded listeners */
#define RNIC_REG_MAX_CONN	0x0a8	/* offloaded connections */
#define RNIC_REG_NUM_MSIX	0x0ac	/* = MAX_EQ + 1 */
#define RNIC_REG_DB_PAGES	0x0b0	/* doorbell BAR pages = MAX_UCTX + 1 */

/*
 * Admin queue.  Program the page lists and ADMQ_CFG, then set
 * DEV_CTRL.ENABLE; the device answers with DEV_STATUS.READY (or FATAL with
 * the reason in DEV_ERROR).  These registers are read-only while enabled.
 */
#define RNIC_REG_ADMQ_SQ_PBL_LO	0x100	/* page list of the command ring */
#define RNIC_REG_ADMQ_SQ_PBL_HI	0x104
#define RNIC_REG_ADMQ_CQ_PBL_LO	0x108	/* page list of the completion ring */
#define RNIC_REG_ADMQ_CQ_PBL_HI	0x10c
#define RNIC_REG_ADMQ_CFG	0x110	/* RNIC_ADMQ_CFG_* */
#define RNIC_REG_ADMQ_SQ_TAIL	0x114	/* WO doorbell: free-running producer index */
#define RNIC_REG_ADMQ_CQ_HEAD	0x118	/* WO free-running consumer index */

#define RNIC_ADMQ_CFG_SQ_LOG(x)	((x) & 0xff)		/* log2 entries */
#define RNIC_ADMQ_CFG_CQ_LOG(x)	(((x) & 0xff) << 8)	/* log2 entries */
#define RNIC_ADMQ_CFG_GET_SQ_LOG(v)	((v) & 0xff)
#define RNIC_ADMQ_CFG_GET_CQ_LOG(v)	(((v) >> 8) & 0xff)
#define RNIC_ADMQ_MIN_LOG	1
#define RNIC_MSIX_ADMIN		0	/* vector of the admin completion ring */

#define RNIC_CTRL_ENABLE	(1u << 0)	/* clearing it while set = RESET */
#define RNIC_CTRL_RESET		(1u << 1)	/* self-clearing; drops all state */

#define RNIC_STATUS_READY	(1u << 0)	/* enabled, admin queue live */
#define RNIC_STATUS_FATAL	(1u << 1)	/* see DEV_ERROR; needs RESET */
#define RNIC_STATUS_RESETTING	(1u << 2)	/* reset requested, not done yet */
#define RNIC_STATUS_LINK_UP	(1u << 3)

#define RNIC_DEVERR_NONE	0
#define RNIC_DEVERR_ADMQ_CFG	1	/* bad admin queue depth or page list */
#define RNIC_DEVERR_ADMQ_DMA	2	/* admin ring not reachable by DMA */

#define RNIC_FEAT_L2		(1u << 0)	/* L2 TX/RX rings */
#define RNIC_FEAT_RDMA		(1u << 1)	/* QP/CQ/MR commands and doorbells */
#define RNIC_FEAT_CM_OFFLOAD	(1u << 2)	/* CM commands/events, TCP in device */
#define RNIC_FEAT_SRQ		(1u << 3)
#define RNIC_FEAT_FRMR		(1u << 4)	/* fast-register / local-invalidate */
#define RNIC_FEAT_ATOMICS	(1u << 5)	/* RFC 7306 atomics */
#define RNIC_FEAT_IMM		(1u << 6)	/* RFC 7306 immediate data */
#define RNIC_FEAT_MPA_MARKERS	(1u << 7)
#define RNIC_FEAT_MPA_CRC	(1u << 8)
#define RNIC_FEAT_RESIZE_CQ	(1u << 9)	/* RNIC_CMD_RESIZE_CQ */
#define RNIC_FEAT_REREG_MR	(1u << 10)	/* RNIC_CMD_REREG_MR */
#define RNIC_FEAT_MW		(1u << 11)	/* memory windows, type 1 and 2B */

/* ------------------------------------------------------------------ */
/* Doorbell BAR                                                        */
/* ------------------------------------------------------------------ */

/*
 * Page 0 belongs to the kernel driver, page n (1..MAX_UCTX) to user context
 * n.  A doorbell is one 64-bit write (two 32-bit writes are not accepted).
 * Writes on page n only reach objects created for context n; anything else
 * is ignored.  Doorbells are never read.
 */
#define RNIC_DB_SQ	0x000	/* index = SQ producer */
#define RNIC_DB_RQ	0x008	/* index = RQ producer */
#define RNIC_DB_SRQ	0x010	/* index = SRQ producer */
#define RNIC_DB_CQ	0x018	/* index = CQ consumer; flags ARM_* */
#define RNIC_DB_EQ	0x020	/* page 0 only; index = EQ consumer; flag ARM */
#define RNIC_DB_L2_TX	0x028	/* page 0 only; index = TX producer; flag ARM */
#define RNIC_DB_L2_RX	0x030	/* page 0 only; index = RX producer; flag ARM */

/*
 * Value: bits 0..23 object number, 24..31 flags, 32..63 free-running index
 * (the ring slot is index & (depth - 1)).
 */
#define RNIC_DB_OBJ_MASK	0x00ffffffu
#define RNIC_DB_ARM		(1u << 24)	/* event on the next completion */
#define RNIC_DB_ARM_SOLICITED	(1u << 25)	/* CQ: event on next solicited */
#define RNIC_DB_VAL(obj, flags, idx) \
	((((__u64)(idx)) << 32) | ((__u64)((flags) & 0xff000000u)) | \
	 ((__u64)((obj) & RNIC_DB_OBJ_MASK)))
#define RNIC_DB_GET_OBJ(v)	((__u32)(v) & RNIC_DB_OBJ_MASK)
#define RNIC_DB_GET_FLAGS(v)	((__u32)(v) & 0xff000000u)
#define RNIC_DB_GET_IDX(v)	((__u32)((v) >> 32))

/* ------------------------------------------------------------------ */
/* Page lists                                                          */
/* ------------------------------------------------------------------ */

/*
 * A buffer made of 2^page_shift-byte pages at arbitrary guest-physical
 * addresses (each page-aligned).  levels = 1: addr points to nentries
 * contiguous __le64 page addresses.  levels = 2: addr points to
 * ceil(nentries / 512) contiguous __le64 addresses of 4 KiB pages, each
 * holding up to 512 page addresses.  Rings use page_shift 12.
 */
struct rnic_pbl {
	__le64 addr;
	__le32 nentries;
	__u8 page_shift;
	__u8 levels;
	__le16 rsvd;
};
RNIC_ASSERT_SIZE(struct rnic_pbl, 16);
#define RNIC_PBL_PER_PAGE	(RNIC_PAGE_SIZE / 8)

/* ------------------------------------------------------------------ */
/* Admin queue: 128-byte commands, 16-byte completions                  */
/* ------------------------------------------------------------------ */

enum rnic_admin_opcode {
	RNIC_CMD_NOP			= 0x00,
	RNIC_CMD_QUERY_STATS		= 0x01,
	RNIC_CMD_SET_PORT		= 0x02,
	RNIC_CMD_CREATE_EQ		= 0x08,
	RNIC_CMD_DESTROY_EQ		= 0x09,
	RNIC_CMD_CREATE_TXQ		= 0x0a,
	RNIC_CMD_DESTROY_TXQ		= 0x0b,
	RNIC_CMD_CREATE_RXQ		= 0x0c,
	RNIC_CMD_DESTROY_RXQ		= 0x0d,
	RNIC_CMD_ALLOC_UCTX		= 0x10,
	RNIC_CMD_FREE_UCTX		= 0x11,
	RNIC_CMD_CREATE_PD		= 0x12,
	RNIC_CMD_DESTROY_PD		= 0x13,
	RNIC_CMD_CREATE_CQ		= 0x14,
	RNIC_CMD_DESTROY_CQ		= 0x15,
	RNIC_CMD_CREATE_SRQ		= 0x16,
	RNIC_CMD_MODIFY_SRQ		= 0x17,
	RNIC_CMD_DESTROY_SRQ		= 0x18,
	RNIC_CMD_CREATE_QP		= 0x19,
	RNIC_CMD_MODIFY_QP		= 0x1a,
	RNIC_CMD_QUERY_QP		= 0x1b,
	RNIC_CMD_DESTROY_QP		= 0x1c,
	RNIC_CMD_RESIZE_CQ		= 0x1d,	/* RNIC_FEAT_RESIZE_CQ */
	RNIC_CMD_REG_MR			= 0x20,
	RNIC_CMD_ALLOC_MR		= 0x21,	/* fast-register MR */
	RNIC_CMD_DEREG_MR		= 0x22,
	RNIC_CMD_REREG_MR		= 0x23,	/* RNIC_FEAT_REREG_MR */
	RNIC_CMD_ALLOC_MW		= 0x24,	/* RNIC_FEAT_MW */
	RNIC_CMD_DEALLOC_MW		= 0x25,	/* RNIC_FEAT_MW; id = STag */
	RNIC_CMD_CM_LISTEN		= 0x30,
	RNIC_CMD_CM_DESTROY_LISTEN	= 0x31,
	RNIC_CMD_CM_CONNECT		= 0x32,
	RNIC_CMD_CM_ACCEPT		= 0x33,
	RNIC_CMD_CM_REJECT		= 0x34,
	RNIC_CMD_CM_DISCONNECT		= 0x35,	/* graceful: FIN after SQ drains */
	RNIC_CMD_CM_ABORT		= 0x36,	/* RST now */
};

/* Completion status (struct rnic_admin_cqe.status). */
enum rnic_admin_status {
	RNIC_STS_OK		= 0x00,
	RNIC_STS_BAD_OPCODE	= 0x01,	/* unknown opcode */
	RNIC_STS_BAD_PARAM	= 0x02,	/* a field is out of its valid range */
	RNIC_STS_BAD_INDEX	= 0x03,	/* object number >= its MAX_x */
	RNIC_STS_EXISTS		= 0x04,	/* object number already in use */
	RNIC_STS_NOT_FOUND	= 0x05,	/* object number not in use */
	RNIC_STS_BUSY		= 0x06,	/* object still referenced */
	RNIC_STS_DMA_ERROR	= 0x07,	/* guest address not reachable */
	RNIC_STS_NO_RESOURCES	= 0x08,
	RNIC_STS_BAD_STATE	= 0x09,	/* not allowed in the object's state */
	RNIC_STS_UNSUPPORTED	= 0x0a,	/* known opcode this device lacks */
	RNIC_STS_RING_OVERFLOW	= 0x0b,	/* SQ tail beyond head + depth */
};

struct rnic_cmd_hdr {
	__u8 opcode;
	__u8 flags;		/* must be 0 */
	__le16 tag;		/* echoed in the completion */
	__le32 rsvd;
};
RNIC_ASSERT_SIZE(struct rnic_cmd_hdr, 8);

/* Commands that name one object: DESTROY_*, FREE_UCTX, CM_DESTROY_LISTEN,
 * CM_DISCONNECT, CM_ABORT, DEREG_MR and DEALLOC_MW (id = STag). */
struct rnic_cmd_obj {
	__le32 id;
	__le32 rsvd;
};

/*
 * buf_len >= sizeof(struct rnic_dev_stats): the device writes the port
 * block and the protocol counters; else, if >= sizeof(struct
 * rnic_port_stats), the port block alone.  port.stats_len says how much was
 * written (0: a device older than the protocol counters, port block only).
 */
struct rnic_cmd_query_stats {
	__le64 buf_addr;	/* receives struct rnic_dev_stats */
	__le32 buf_len;		/* >= sizeof(struct rnic_port_stats) */
	__le32 rsvd;
};

#define RNIC_PORT_PROMISC	(1u << 0)	/* every frame to the L2 rings */
#define RNIC_PORT_ALLMULTI	(1u << 1)
struct rnic_cmd_set_port {
	__u8 mac[6];		/* unicast address the port answers to */
	__le16 mtu;		/* IP MTU, MIN_MTU..MAX_MTU */
	__le32 flags;		/* RNIC_PORT_* */
};

#define RNIC_EQ_F_ASYNC		(1u << 0)	/* receives async events (one EQ) */
#define RNIC_EQ_F_CM		(1u << 1)	/* receives CM events (one EQ) */
struct rnic_cmd_create_eq {
	__le32 eqn;		/* 1..MAX_EQ; MSI-X vector = eqn */
	__u8 log_depth;		/* 64-byte entries; created unarmed */
	__u8 flags;		/* RNIC_EQ_F_* */
	__le16 rsvd;
	struct rnic_pbl ring;
	/* CM EQ: one RNIC_CM_PDATA_SLOT slot per entry, private data of the
	 * event in slot (entry index); nentries 0 when not a CM EQ. */
	struct rnic_pbl pdata;
};
#define RNIC_CM_PDATA_SLOT	512
#define RNIC_CM_EQ_MAX_DEPTH	512	/* entries of an EQ with RNIC_EQ_F_CM */

/* CREATE_TXQ and CREATE_RXQ: an L2 ring of 16-byte descriptors. */
struct rnic_cmd_create_l2q {
	__le32 qid;		/* 0..MAX_L2Q-1 */
	__le32 eqn;		/* where ring events go */
	__u8 log_depth;
	__u8 rsvd[7];
	struct rnic_pbl ring;
};

struct rnic_cmd_alloc_uctx {
	__le32 uctx;		/* 1..MAX_UCTX = doorbell page */
	__le32 rsvd;
};

struct rnic_cmd_create_pd {
	__le32 pdn;
	__le32 uctx;		/* 0 = kernel */
};

struct rnic_cmd_create_cq {
	__le32 cqn;
	__le32 eqn;		/* completion events go here */
	__le32 uctx;		/* doorbell page that may ring it */
	__u8 log_depth;		/* 32-byte CQEs */
	__u8 rsvd[3];
	/* 8 bytes where the consumer stores its free-running consumer index
	 * (LE u32) so the device detects overflow without an MMIO read. */
	__le64 dbrec_addr;
	struct rnic_pbl ring;
};

/*
 * RESIZE_CQ: the CQ moves to a new ring and consumer record.  The CQEs the
 * consumer has not taken (the old record read first) are copied to slots
 * 0..n-1 of the new ring, n in result0; the device goes on at n and the
 * consumer starts again at 0 (its new record holds 0).  Arming carries over.
 * Refused with BAD_STATE on a CQ in error or when n exceeds the new depth;
 * a failed resize changes nothing.
 */
struct rnic_cmd_resize_cq {
	__le32 cqn;
	__u8 log_depth;		/* 32-byte CQEs */
	__u8 rsvd[3];
	__le64 dbrec_addr;	/* the new consumer record, holding 0 */
	struct rnic_pbl ring;
};

struct rnic_cmd_create_srq {
	__le32 srqn;
	__le32 pdn;
	__le32 uctx;
	__u8 log_depth;		/* RNIC_RQ_WQE_SIZE entries */
	__u8 max_sge;
	__le16 limit;		/* SRQ_LIMIT event below this many WQEs; 0 off */
	struct rnic_pbl ring;
};

struct rnic_cmd_modify_srq {
	__le32 srqn;
	__le16 limit;
	__le16 rsvd;
};

#define RNIC_NO_SRQ		0xffffffffu
#define RNIC_QP_F_SQ_SIG_ALL	(1u << 0)	/* every WQE is signaled */
struct rnic_cmd_create_qp {
	__le32 qpn;
	__le32 pdn;
	__le32 uctx;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 srqn;		/* or RNIC_NO_SRQ: then rq is used */
	__u8 sq_log_depth;	/* RNIC_SQ_WQE_SIZE entries */
	__u8 rq_log_depth;	/* RNIC_RQ_WQE_SIZE entries; 0 with an SRQ */
	__u8 max_send_sge;
	__u8 max_recv_sge;
	__le16 max_inline;
	__le16 flags;		/* RNIC_QP_F_* */
	struct rnic_pbl sq;
	struct rnic_pbl rq;
};

/* iWARP QP states (RFC 5040 section 6 / verbs). */
enum rnic_qp_state {
	RNIC_QPS_IDLE		= 0,	/* created, not connected */
	RNIC_QPS_RTS		= 1,	/* connected (entered by CM_CONNECT/ACCEPT) */
	RNIC_QPS_CLOSING	= 2,	/* graceful close in progress */
	RNIC_QPS_TERMINATE	= 3,	/* Terminate sent or received */
	RNIC_QPS_ERROR		= 4,	/* flushed */
};

#define RNIC_QP_ATTR_STATE	(1u << 0)
#define RNIC_QP_ATTR_ACCESS	(1u << 1)
#define RNIC_QP_ATTR_IRD	(1u << 2)
#define RNIC_QP_ATTR_ORD	(1u << 3)
struct rnic_cmd_modify_qp {
	__le32 qpn;
	__le32 attr_mask;	/* RNIC_QP_ATTR_* */
	__u8 state;		/* enum rnic_qp_state: only CLOSING / ERROR */
	__u8 ird;
	__u8 ord;
	__u8 rsvd;
	__le32 access;		/* RNIC_ACCESS_REMOTE_* allowed on the QP */
};

struct rnic_cmd_query_qp {
	__le32 qpn;
	__le32 buf_len;		/* >= sizeof(struct rnic_qp_attr) */
	__le64 buf_addr;	/* receives struct rnic_qp_attr */
};

/* Memory access rights (MRs, QPs, fast-register). */
#define RNIC_ACCESS_LOCAL_WRITE		(1u << 0)
#define RNIC_ACCESS_REMOTE_READ		(1u << 1)
#define RNIC_ACCESS_REMOTE_WRITE	(1u << 2)
#define RNIC_ACCESS_REMOTE_ATOMIC	(1u << 3)
/* MRs (REG_MR, REREG_MR) only: memory windows may be bound to it. */
#define RNIC_ACCESS_MW_BIND		(1u << 4)

/*
 * STag = index << 8 | key: the driver picks the 24-bit index
 * (< MAX_MR) and the 8-bit key; the device checks both on every use.
 */
#define RNIC_STAG_INDEX(stag)	((stag) >> 8)
#define RNIC_STAG_KEY(stag)	((stag) & 0xff)
#define RNIC_STAG(index, key)	(((index) << 8) | ((key) & 0xff))

/*
 * RNIC_MR_F_PHYS: iova is a guest-physical address and pages is ignored
 * (all zero): the kernel's DMA MR (local DMA lkey); never for user space.
 */
#define RNIC_MR_F_PHYS		(1u << 0)
struct rnic_cmd_reg_mr {
	__le32 stag;
	__le32 pdn;
	__le32 access;		/* RNIC_ACCESS_* */
	__le32 flags;		/* RNIC_MR_F_* (was reserved, 0) */
	__le64 iova;		/* first byte of the region as peers address it */
	__le64 length;
	struct rnic_pbl pages;	/* page_shift: a size in REG_PAGE_SIZES */
};

/*
 * REREG_MR takes struct rnic_cmd_reg_mr (u.reg_mr): an MR of REG_MR (not
 * PHYS, not fast-register) takes a new PD, access, iova/length and page
 * list at once, under the same STag index; stag may carry a new key.  All
 * fields are given (unchanged ones repeated).  A failed one changes nothing.
 */

struct rnic_cmd_alloc_mr {
	__le32 stag;		/* invalid until a fast-register WQE */
	__le32 pdn;
	__le32 max_pages;
	__le32 rsvd;
};

/*
 * Memory windows (RNIC_FEAT_MW) share the STag index space with MRs
 * (MAX_MR covers both).  ALLOC_MW makes an unbound window of PD pdn; a
 * BIND_MW WQE binds it to a range of an MR (RNIC_ACCESS_MW_BIND) of the
 * same PD, giving remote access through the window STag alone.
 *
 * Type 1: bound to the PD (any QP of it may be addressed through it);
 * bound again or unbound (length 0) by a later BIND_MW; not invalidated
 * by LOCAL_INV or Send with Invalidate.
 * Type 2B: bound to the QP that posted the BIND_MW (a request on another
 * QP gets "STag not associated with RDMAP stream"); bound only when
 * invalid; invalidated by LOCAL_INV on that QP or a Send with Invalidate
 * arriving on it.
 *
 * While windows are bound to an MR, DEREG_MR and REREG_MR of it fail with
 * BUSY and invalidating it (fast-register) fails; DEALLOC_MW of a bound
 * window unbinds it.  Destroying a QP invalidates the type 2B windows
 * bound to it.
 */
#define RNIC_MW_TYPE_1		1
#define RNIC_MW_TYPE_2		2
struct rnic_cmd_alloc_mw {
	__le32 stag;		/* invalid (unbound) until a BIND_MW WQE */
	__le32 pdn;
	__u8 type;		/* RNIC_MW_TYPE_* */
	__u8 rsvd[3];
	__le32 rsvd2;
};

/* Connection identity; ports are plain LE integers, addresses bytes in
 * network order, IPv4 in bytes 0..3 of the 16 (rest zero). */
#define RNIC_AF_IPV4	4
#define RNIC_AF_IPV6	6
struct rnic_tuple {
	__u8 family;		/* RNIC_AF_* */
	__u8 rsvd[3];
	__u8 local_addr[16];
	__u8 remote_addr[16];
	__le16 local_port;
	__le16 remote_port;
};
RNIC_ASSERT_SIZE(struct rnic_tuple, 40);

/*
 * 802.1Q VLAN of a connection or listening address (RNIC_CONNECT_F_VLAN,
 * RNIC_LISTEN_F_VLAN): the TCI its frames carry, VID in bits 0..11
 * (1..4094), PCP in bits 13..15, DEI (bit 12) zero.
 */
#define RNIC_VLAN_VID_MASK	0x0fff
#define RNIC_VLAN_DEI		(1u << 12)
#define RNIC_VLAN_PCP_SHIFT	13

#define RNIC_LISTEN_F_VLAN	(1u << 0)
struct rnic_cmd_cm_listen {
	__le32 listen_id;	/* 0..MAX_LISTEN-1 */
	__le32 backlog;
	__u8 family;
	__u8 rsvd;
	__le16 port;
	__u8 addr[16];		/* all zero: any local address (and VLAN) */
	__le32 flags;		/* RNIC_LISTEN_F_*; older drivers leave 0 */
	__le16 vlan;		/* TCI of addr's VLAN, with RNIC_LISTEN_F_VLAN */
	__le16 rsvd2;
};

/* MPA negotiation (RFC 5044 / RFC 6581). */
#define RNIC_MPA_CRC		(1u << 0)	/* ask for / accept CRC */
#define RNIC_MPA_MARKERS	(1u << 1)	/* ask for markers */
#define RNIC_MPA_P2P_WRITE	(1u << 2)	/* RTR by zero-length Write */
#define RNIC_MPA_P2P_READ	(1u << 3)	/* RTR by zero-length Read */
#define RNIC_MPA_P2P_SEND	(1u << 4)	/* RTR by zero-length Send */
/*
 * RFC 7306 (Immediate Data, Atomics): in CM_CONNECT/CM_ACCEPT, offer or
 * agree to it in the MPA exchange; in events and QUERY_QP, offered by the
 * Request (CONNECT_REQUEST) or negotiated (on only when both ends asked).
 */
#define RNIC_MPA_RFC7306	(1u << 5)
#define RNIC_MPA_MAX_PDATA	512

#define RNIC_CONNECT_F_VLAN	(1u << 0)
struct rnic_cmd_cm_connect {
	__le32 qpn;		/* the QP moves to RTS when established */
	__le32 flags;		/* RNIC_CONNECT_F_* */
	struct rnic_tuple tuple;	/* local_port chosen by the driver */
	__u8 next_hop_mac[6];	/* from the guest's neighbour table */
	__le16 vlan;		/* TCI, with RNIC_CONNECT_F_VLAN */
	__u8 ird;
	__u8 ord;
	__u8 mpa_rev;		/* 1 or 2 */
	__u8 mpa_flags;		/* RNIC_MPA_* */
	__le16 pdata_len;	/* <= RNIC_MPA_MAX_PDATA */
	__le16 mss;		/* 0: from the port MTU */
	__le64 pdata_addr;
};	/* completion result0 = conn_id */

struct rnic_cmd_cm_accept {
	__le32 conn_id;		/* from the CONNECT_REQUEST event */
	__le32 qpn;
	__u8 ird;
	__u8 ord;
	__u8 mpa_flags;
	__u8 rsvd;
	__le16 pdata_len;
	__le16 rsvd2;
	__le64 pdata_addr;
};

struct rnic_cmd_cm_reject {
	__le32 conn_id;
	__le16 pdata_len;
	__le16 rsvd;
	__le64 pdata_addr;
};

struct rnic_admin_cmd {
	struct rnic_cmd_hdr hdr;
	union {
		struct rnic_cmd_obj obj;
		struct rnic_cmd_query_stats query_stats;
		struct rnic_cmd_set_port set_port;
		struct rnic_cmd_create_eq create_eq;
		struct rnic_cmd_create_l2q create_l2q;
		struct rnic_cmd_alloc_uctx alloc_uctx;
		struct rnic_cmd_create_pd create_pd;
		struct rnic_cmd_create_cq create_cq;
		struct rnic_cmd_resize_cq resize_cq;
		struct rnic_cmd_create_srq create_srq;
		struct rnic_cmd_modify_srq modify_srq;
		struct rnic_cmd_create_qp create_qp;
		struct rnic_cmd_modify_qp modify_qp;
		struct rnic_cmd_query_qp query_qp;
		struct rnic_cmd_reg_mr reg_mr;
		struct rnic_cmd_alloc_mr alloc_mr;
		struct rnic_cmd_alloc_mw alloc_mw;
		struct rnic_cmd_cm_listen cm_listen;
		struct rnic_cmd_cm_connect cm_connect;
		struct rnic_cmd_cm_accept cm_accept;
		struct rnic_cmd_cm_reject cm_reject;
		__u8 raw[120];
	} u;
};
RNIC_ASSERT_SIZE(struct rnic_admin_cmd, 128);
#define RNIC_ADMIN_CMD_SIZE	128

/*
 * Admin completion.  The device writes the whole entry, then the flags byte
 * last, so a consumer that sees the expected phase sees the whole entry.
 * Phase is 1 on the first pass through the ring and flips on each wrap.
 */
#define RNIC_CQE_PHASE		(1u << 0)
struct rnic_admin_cqe {
	__le32 result0;		/* command specific (e.g. conn_id) */
	__le32 result1;
	__le16 sq_head;		/* commands consumed so far (free-running) */
	__le16 tag;		/* from the command; 0xffff: not tied to one */
	__u8 status;		/* enum rnic_admin_status */
	__u8 opcode;
	__u8 rsvd;
	__u8 flags;		/* RNIC_CQE_PHASE */
};
RNIC_ASSERT_SIZE(struct rnic_admin_cqe, 16);
#define RNIC_ADMIN_CQE_SIZE	16
#define RNIC_ADMIN_TAG_NONE	0xffff

/* ------------------------------------------------------------------ */
/* Event queues: 64-byte entries, MSI-X vector = EQ number              */
/* ------------------------------------------------------------------ */

enum rnic_eqe_type {
	RNIC_EQE_COMP		= 1,	/* obj = CQ with a new CQE */
	RNIC_EQE_L2_TX		= 2,	/* obj = TX queue with completed descs */
	RNIC_EQE_L2_RX		= 3,	/* obj = RX queue with received frames */
	RNIC_EQE_ASYNC		= 4,	/* code = enum rnic_async_code */
	RNIC_EQE_CM		= 5,	/* code = enum rnic_cm_event, obj = conn */
};

enum rnic_async_code {
	RNIC_ASYNC_PORT_UP		= 1,
	RNIC_ASYNC_PORT_DOWN		= 2,
	RNIC_ASYNC_CQ_OVERFLOW		= 3,	/* obj = cqn; QP_FATAL for its QPs follows */
	RNIC_ASYNC_QP_FATAL		= 4,	/* obj = qpn */
	RNIC_ASYNC_QP_REQ_ERR		= 5,	/* obj = qpn */
	RNIC_ASYNC_QP_ACCESS_ERR	= 6,	/* obj = qpn */
	RNIC_ASYNC_SRQ_LIMIT		= 7,	/* obj = srqn */
	RNIC_ASYNC_SRQ_ERR		= 8,	/* obj = srqn */
	RNIC_ASYNC_EQ_OVERFLOW		= 9,	/* obj = eqn whose events were lost */
	RNIC_ASYNC_DB_ERROR		= 10,	/* obj = queue; info = doorbell offset */
	RNIC_ASYNC_L2_ERROR		= 11,	/* obj = queue; info = RNIC_L2ERR_* */
};

enum rnic_cm_event {
	RNIC_CM_CONNECT_REQUEST	= 1,	/* passive: peer's MPA request arrived */
	RNIC_CM_CONNECT_REPLY	= 2,	/* active: MPA reply accepted, QP in RTS */
	RNIC_CM_ESTABLISHED	= 3,	/* passive: after CM_ACCEPT, QP in RTS */
	RNIC_CM_REJECTED	= 4,	/* active: peer rejected */
	RNIC_CM_CLOSED		= 5,	/* graceful close finished */
	RNIC_CM_RESET		= 6,	/* peer reset or abort */
	RNIC_CM_TIMEOUT		= 7,	/* SYN/MPA/close timed out */
	RNIC_CM_MPA_ERROR	= 8,	/* malformed MPA exchange */
};

struct rnic_eqe_cm {
	__le32 listen_id;	/* CONNECT_REQUEST: the listener */
	__le32 qpn;		/* bound QP, or 0xffffffff */
	__u8 ird;		/* negotiated (or requested by the peer) */
	__u8 ord;
	__u8 mpa_rev;
	__u8 mpa_flags;		/* RNIC_MPA_* as negotiated */
	__le16 pdata_len;	/* bytes in this entry's pdata slot */
	__le16 status;		/* errno-like detail for REJECTED/RESET */
	struct rnic_tuple tuple;
};
RNIC_ASSERT_SIZE(struct rnic_eqe_cm, 56);

struct rnic_eqe_async {
	__le32 info;
	__le32 rsvd[13];
};

struct rnic_eqe {
	__u8 type;		/* enum rnic_eqe_type */
	__u8 code;
	__u8 rsvd;
	__u8 flags;		/* RNIC_CQE_PHASE; written last */
	__le32 obj;
	union {
		struct rnic_eqe_cm cm;
		struct rnic_eqe_async async;
		__u8 raw[56];
	} u;
};
RNIC_ASSERT_SIZE(struct rnic_eqe, 64);
#define RNIC_EQE_SIZE		64

/* ------------------------------------------------------------------ */
/* L2 rings: 16-byte descriptors, written back by the device           */
/* ------------------------------------------------------------------ */

/*
 * The driver fills descriptors, clears status and advances the producer
 * index with a doorbell.  The device consumes in order and writes the
 * descriptor back with RNIC_L2_DONE set (status written last).
 */
#define RNIC_L2_DONE		(1u << 0)
#define RNIC_L2_ERR		(1u << 1)
#define RNIC_L2_TX_EOP		(1u << 0)	/* last descriptor of a frame */
/*
 * The largest frame any device may be configured for: MAX_MTU (at most
 * 65000) + Ethernet header + VLAN + FCS room.  A device's own limit is its
 * MAX_MTU register + 22; the driver sizes its RX buffers from the MTU it
 * set (SET_PORT), never from this constant.
 */
#define RNIC_L2_MAX_FRAME	65022

struct rnic_l2_tx_desc {
	__le64 addr;
	__le16 len;
	__u8 flags;		/* RNIC_L2_TX_* */
	__u8 status;		/* RNIC_L2_DONE / RNIC_L2_ERR */
	__le32 rsvd;
};
RNIC_ASSERT_SIZE(struct rnic_l2_tx_desc, 16);

struct rnic_l2_rx_desc {
	__le64 addr;
	__le16 buf_len;		/* driver: buffer size */
	__le16 pkt_len;		/* device: frame length, no FCS */
	__u8 flags;
	__u8 status;		/* RNIC_L2_DONE / RNIC_L2_ERR */
	__le16 rsvd;
};
RNIC_ASSERT_SIZE(struct rnic_l2_rx_desc, 16);
#define RNIC_L2_DESC_SIZE	16

#define RNIC_L2ERR_BAD_DESC	1	/* zero or oversize length */
#define RNIC_L2ERR_DMA		2	/* buffer not reachable */
#define RNIC_L2ERR_DB_OVERFLOW	3	/* producer beyond consumer + depth */

struct rnic_port_stats {
	__le64 tx_frames;
	__le64 tx_bytes;
	__le64 tx_errors;
	__le64 rx_frames;	/* delivered to the L2 rings */
	__le64 rx_bytes;
	__le64 rx_no_buffer;	/* dropped: no RX descriptor */
	__le64 rx_too_long;	/* dropped: longer than the buffer/MTU */
	__le64 rx_filtered;	/* dropped: not our MAC, not promiscuous */
	__le64 rx_offload;	/* steered to the offload engine */
	__le64 rx_errors;	/* DMA errors on RX */
	/* host memory the device holds for connections and QPs now */
	__le64 conn_mem_bytes;
	/* host memory of its offload TCP engines (one per local address) */
	__le64 tcp_engine_mem_bytes;
	__le32 stats_len;	/* octets QUERY_STATS wrote; 0: 128 (older) */
	__le32 rsvd0;
	__le64 rsvd[3];
};
RNIC_ASSERT_SIZE(struct rnic_port_stats, 128);

/*
 * Protocol counters, counted where the event happens in the offload TCP
 * and the iWARP layers, since the device's last reset.  The TCP ones add
 * up every local address's TCP engine.  docs/hardware-interface.md
 * "Counters" says what each counts.
 */
struct rnic_proto_stats {
	__le64 tcp_tx_segs;	/* segments sent, retransmissions included */
	__le64 tcp_rx_segs;	/* segments given to the offload TCP */
	__le64 tcp_tx_data_segs;	/* of tcp_tx_segs, carrying data */
	__le64 tcp_rexmit_segs;	/* segments sent again */
	__le64 tcp_rto;		/* retransmission timeouts */
	__le64 tcp_fast_rexmit;	/* fast retransmits (duplicate ACKs, SACK) */
	__le64 tcp_rx_csum_err;	/* dropped: bad TCP checksum */
	__le64 tcp_rx_bad;	/* dropped: malformed IPv4/TCP headers */
	__le64 tcp_rx_ooo;	/* segments beyond rcv_nxt, held for reassembly */
	__le64 tcp_rx_dup;	/* segments with data received before */
	__le64 tcp_rx_no_conn;	/* for no connection or listener */
	__le64 tcp_tx_rst;	/* RSTs sent */
	__le64 tcp_paws_drop;	/* dropped: PAWS (old timestamp) */
	__le64 tcp_conns_opened;	/* connections opened, active + passive */
	__le64 mpa_crc_err;	/* FPDUs with a bad CRC32c */
	__le64 mpa_frame_err;	/* other MPA receive errors (marker, length) */
	__le64 mpa_neg_fail;	/* MPA Request/Reply exchanges that failed */
	__le64 term_tx;		/* Terminate messages sent */
	__le64 term_rx;		/* Terminate messages received */
	__le64 fpdu_tx;		/* FPDUs sent (handshake messages excluded) */
	__le64 fpdu_rx;		/* FPDUs received with a good CRC */
	__le64 conns_rts;	/* connections that reached RTS */
	__le64 rsvd[10];
};
RNIC_ASSERT_SIZE(struct rnic_proto_stats, 256);

struct rnic_dev_stats {
	struct rnic_port_stats port;
	struct rnic_proto_stats proto;
};
RNIC_ASSERT_SIZE(struct rnic_dev_stats, 384);

/* ------------------------------------------------------------------ */
/* RDMA work queues and completions                                    */
/* ------------------------------------------------------------------ */

struct rnic_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};
RNIC_ASSERT_SIZE(struct rnic_sge, 16);

enum rnic_wqe_opcode {
	RNIC_WR_SEND		= 0x00,
	RNIC_WR_SEND_INV	= 0x01,	/* ex = remote STag to invalidate */
	RNIC_WR_WRITE		= 0x02,
	RNIC_WR_WRITE_IMM	= 0x03,	/* ex = immediate data */
	RNIC_WR_READ		= 0x04,
	RNIC_WR_ATOMIC_FADD	= 0x05,
	RNIC_WR_ATOMIC_CSWAP	= 0x06,
	RNIC_WR_LOCAL_INV	= 0x07,	/* ex = local STag */
	RNIC_WR_REG_MR		= 0x08,	/* fast-register */
	RNIC_WR_SEND_IMM	= 0x09,	/* ex = immediate data */
	/* READ whose local sink STag ex (the first SGE's lkey) is invalidated
	 * when the Read completes (RDMA Read with Local Invalidate, as Linux's
	 * rdma_rw reads on iWARP). */
	RNIC_WR_READ_INV	= 0x0a,
	RNIC_WR_BIND_MW		= 0x0b,	/* RNIC_FEAT_MW; user QPs too */
};

#define RNIC_WQE_SIGNALED	(1u << 0)	/* write a CQE on success */
#define RNIC_WQE_SOLICITED	(1u << 1)	/* SE bit: Send family, Write-Imm */
#define RNIC_WQE_FENCE		(1u << 2)	/* wait for prior Reads */
#define RNIC_WQE_INLINE		(1u << 3)	/* data follows in-line */

struct rnic_wqe_hdr {
	__le64 wr_id;		/* returned in the CQE */
	__u8 opcode;		/* enum rnic_wqe_opcode */
	__u8 flags;		/* RNIC_WQE_* */
	__le16 count;		/* SGEs, or in-line bytes with WQE_INLINE */
	__le32 ex;		/* immediate data / STag to invalidate */
};
RNIC_ASSERT_SIZE(struct rnic_wqe_hdr, 16);
/* LOCAL_INV and BIND_MW are allowed on user QPs; REG_MR on kernel QPs. */

struct rnic_wqe_rdma {		/* WRITE, WRITE_IMM, READ */
	__le64 remote_addr;
	__le32 rkey;
	__le32 rsvd[9];
};

struct rnic_wqe_atomic {	/* ATOMIC_FADD, ATOMIC_CSWAP: 8-byte target */
	__le64 remote_addr;
	__le32 rkey;
	__le32 rsvd;
	__le64 compare_add;
	__le64 swap;
	__le64 rsvd2[2];
};

struct rnic_wqe_reg_mr {	/* fast-register an ALLOC_MR STag */
	__le64 iova;
	__le64 length;
	__le32 stag;		/* new key in the low 8 bits */
	__le32 access;		/* RNIC_ACCESS_* */
	struct rnic_pbl pages;	/* level-1 list prepared by the driver */
	__le64 rsvd;
};

/*
 * Bind window mw_stag (its new key in the low 8 bits) to [va, va + length)
 * of MR mr_stag with remote rights access (RNIC_ACCESS_REMOTE_*; write and
 * atomic need LOCAL_WRITE on the MR).  Type 1: length 0 unbinds.
 */
struct rnic_wqe_bind_mw {
	__le64 va;
	__le64 length;
	__le32 mw_stag;
	__le32 mr_stag;
	__le32 access;
	__le32 rsvd[5];
};

#define RNIC_SQ_WQE_SIZE	256
#define RNIC_SQ_MAX_SGE		12
#define RNIC_SQ_MAX_INLINE	192
struct rnic_sq_wqe {
	struct rnic_wqe_hdr hdr;
	union {
		struct rnic_wqe_rdma rdma;
		struct rnic_wqe_atomic atomic;
		struct rnic_wqe_reg_mr reg_mr;
		struct rnic_wqe_bind_mw bind_mw;
		__u8 raw[48];
	} op;
	union {
		struct rnic_sge sge[RNIC_SQ_MAX_SGE];
		__u8 inline_data[RNIC_SQ_MAX_INLINE];
	} data;
};
RNIC_ASSERT_SIZE(struct rnic_wqe_rdma, 48);
RNIC_ASSERT_SIZE(struct rnic_wqe_atomic, 48);
RNIC_ASSERT_SIZE(struct rnic_wqe_reg_mr, 48);
RNIC_ASSERT_SIZE(struct rnic_wqe_bind_mw, 48);
RNIC_ASSERT_SIZE(struct rnic_sq_wqe, RNIC_SQ_WQE_SIZE);

#define RNIC_RQ_WQE_SIZE	128
#define RNIC_RQ_MAX_SGE		7
struct rnic_rq_wqe {		/* RQ and SRQ */
	__le64 wr_id;
	__le16 num_sge;
	__le16 rsvd;
	__le32 rsvd2;
	struct rnic_sge sge[RNIC_RQ_MAX_SGE];
};
RNIC_ASSERT_SIZE(struct rnic_rq_wqe, RNIC_RQ_WQE_SIZE);

enum rnic_cqe_opcode {
	RNIC_WC_SEND		= 0x00,
	RNIC_WC_WRITE		= 0x01,
	RNIC_WC_READ		= 0x02,
	RNIC_WC_ATOMIC_FADD	= 0x03,
	RNIC_WC_ATOMIC_CSWAP	= 0x04,
	RNIC_WC_LOCAL_INV	= 0x05,
	RNIC_WC_REG_MR		= 0x06,
	RNIC_WC_BIND_MW		= 0x07,
	RNIC_WC_RECV		= 0x80,	/* Send family received */
	RNIC_WC_RECV_WRITE_IMM	= 0x81,	/* Write with immediate received */
};

enum rnic_cqe_status {
	RNIC_WC_SUCCESS		= 0x00,
	RNIC_WC_LOC_LEN_ERR	= 0x01,
	RNIC_WC_LOC_QP_OP_ERR	= 0x02,
	RNIC_WC_LOC_PROT_ERR	= 0x03,
	RNIC_WC_WR_FLUSH_ERR	= 0x04,
	RNIC_WC_BAD_RESP_ERR	= 0x05,
	RNIC_WC_LOC_ACCESS_ERR	= 0x06,
	RNIC_WC_REM_INV_REQ_ERR	= 0x07,
	RNIC_WC_REM_ACCESS_ERR	= 0x08,
	RNIC_WC_REM_OP_ERR	= 0x09,
	RNIC_WC_RETRY_EXC_ERR	= 0x0a,
	RNIC_WC_FATAL_ERR	= 0x0b,
	RNIC_WC_GENERAL_ERR	= 0x0c,
	RNIC_WC_MW_BIND_ERR	= 0x0d,	/* a BIND_MW the device refused */
};

#define RNIC_CQE_F_IMM		(1u << 0)	/* ex holds immediate data */
#define RNIC_CQE_F_INV		(1u << 1)	/* ex holds the invalidated STag */
#define RNIC_CQE_F_SOLICITED	(1u << 2)

struct rnic_cqe {
	__le64 wr_id;
	__le32 byte_len;	/* received/read bytes */
	__le32 ex;		/* immediate data or invalidated STag */
	__le32 qpn;
	__le16 wqe_idx;		/* ring slot the completion belongs to */
	__u8 opcode;		/* enum rnic_cqe_opcode */
	__u8 status;		/* enum rnic_cqe_status */
	__u8 flags;		/* RNIC_CQE_F_* */
	__u8 vendor_err;	/* Terminate layer/type when relevant */
	__u8 rsvd;
	__u8 owner;		/* RNIC_CQE_PHASE; written last */
	__le32 rsvd2;
};
RNIC_ASSERT_SIZE(struct rnic_cqe, 32);
#define RNIC_CQE_SIZE		32

/* ------------------------------------------------------------------ */
/* QUERY_QP output: verbs view plus the offloaded TCP/MPA state         */
/* ------------------------------------------------------------------ */

struct rnic_qp_tcp_state {
	__le32 snd_una;
	__le32 snd_nxt;
	__le32 rcv_nxt;
	__le32 snd_wnd;		/* peer's window, bytes (scaled) */
	__le32 rcv_wnd;
	__le16 mss;
	__u8 snd_wscale;
	__u8 rcv_wscale;
	__le32 srtt_us;
	__le32 retransmits;
};
RNIC_ASSERT_SIZE(struct rnic_qp_tcp_state, 32);

/* The offload TCP's connection states (RFC 793), QUERY_QP tcp_state. */
enum rnic_hw_tcp_state {
	RNIC_TCPS_CLOSED	= 0,
	RNIC_TCPS_LISTEN	= 1,
	RNIC_TCPS_SYN_SENT	= 2,
	RNIC_TCPS_SYN_RCVD	= 3,
	RNIC_TCPS_ESTABLISHED	= 4,
	RNIC_TCPS_FIN_WAIT_1	= 5,
	RNIC_TCPS_FIN_WAIT_2	= 6,
	RNIC_TCPS_CLOSE_WAIT	= 7,
	RNIC_TCPS_CLOSING	= 8,
	RNIC_TCPS_LAST_ACK	= 9,
	RNIC_TCPS_TIME_WAIT	= 10,
};

struct rnic_qp_attr {
	__u8 state;		/* enum rnic_qp_state */
	__u8 ird;
	__u8 ord;
	__u8 mpa_rev;
	__u8 mpa_flags;		/* negotiated RNIC_MPA_* */
	__u8 tcp_state;		/* RNIC_TCPS_*; CLOSED: no TCP */
	__u8 rsvd[2];
	__le32 access;
	__le32 conn_id;		/* 0xffffffff when not connected */
	__le32 sq_cons;		/* device's free-running consumer indices */
	__le32 rq_cons;
	struct rnic_tuple tuple;
	struct rnic_qp_tcp_state tcp;
	__le32 rsvd2[8];
};
RNIC_ASSERT_SIZE(struct rnic_qp_attr, 128);

#endif /* RNIC_HW_H */
