/* Names of the tree algorithms' messages, for the experiments' tables. */
#include "msg.h"

#include <string.h>

static const char *const names[FTC_MSG_KINDS] = {
    [FTC_MSG_CONNECT] = "Connect",
    [FTC_MSG_INITIATE] = "Initiate",
    [FTC_MSG_TEST] = "Test",
    [FTC_MSG_ACCEPT] = "Accept",
    [FTC_MSG_REJECT] = "Reject",
    [FTC_MSG_REPORT] = "Report",
    [FTC_MSG_CHANGE_ROOT] = "Change-root",
    [FTC_MSG_GOSLEEP] = "Gosleep",
    [FTC_MSG_PRIVILEGE] = "Privilege",
    [FTC_MSG_FAILURE] = "Failure",
    [FTC_MSG_REIDEN] = "Reiden",
    [FTC_MSG_REIDEN_ACK] = "Reiden-ack",
    [FTC_MSG_FINDMOE] = "Findmoe",
    [FTC_MSG_MOE_REPORT] = "Moe-report",
    [FTC_MSG_MOE_CHANGE] = "Moe-change",
    [FTC_MSG_MOE_CONNECT] = "Moe-connect",
    [FTC_MSG_DETACH] = "Detach",
    [FTC_MSG_ID_CHECK] = "Id-check",
    [FTC_MSG_RECOVERY] = "Recovery",
    [FTC_MSG_REPLACE] = "Replace",
    [FTC_MSG_REPLACE_CONNECT] = "Replace-connect",
    [FTC_MSG_GOSLEEP_REC] = "Gosleep-rec",
    [FTC_MSG_PING] = "Ping",
    [FTC_MSG_PONG] = "Pong",
    [FTC_MSG_BCAST] = "Bcast",
};

const char *ftc_msg_kind_name(ftc_msg_kind kind)
{
    return kind >= 0 && kind < FTC_MSG_KINDS ? names[kind] : "?";
}

ftc_msg ftc_msg_make(int kind, int from, int to)
{
    ftc_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.kind = kind;
    msg.from = from;
    msg.to = to;
    return msg;
}
