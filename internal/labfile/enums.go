package labfile

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The settings that take one of a few words are types of their own, parsed
// and checked once here: code elsewhere compares against these constants,
// never against a string, so a misspelt value cannot compile.

// LoopMode is how clients pace their requests (clients.mode).
type LoopMode string

const (
	OpenLoop   LoopMode = "open"   // Poisson arrivals at clients.rate
	ClosedLoop LoopMode = "closed" // clients.users, each waiting for its answer, then thinking
)

// WorkAt says who draws a request's service time (clients.work_at).
type WorkAt string

const (
	WorkAtClient WorkAt = "client" // requests carry their work
	WorkAtServer WorkAt = "server" // each server draws per attempt
)

// Activity is how requests spread over client ids (clients.activity).
type Activity string

const (
	EvenActivity Activity = "even"
	ZipfActivity Activity = "zipf"
)

// BackoffJitter is the jitter of retry backoff (clients.backoff.jitter).
type BackoffJitter string

const (
	FullJitter BackoffJitter = "full" // a uniform wait in [0, the backoff]
	NoJitter   BackoffJitter = "none"
)

// LoadMode is where a balancer's load figures come from (balancers.load).
type LoadMode string

const (
	LocalLoad  LoadMode = "local"  // its own counts, fresh
	SharedLoad LoadMode = "shared" // the servers' reports, refreshed periodically
)

// HashOn is what key-affinity algorithms hash (balancers.hash_on).
type HashOn string

const (
	HashKey    HashOn = "key"
	HashClient HashOn = "client"
)

// Discipline is a server queue's order (queue.discipline).
type Discipline string

const (
	FIFO Discipline = "fifo"
	LIFO Discipline = "lifo"
)

// Action is what a script event does (events[].action).
type Action string

// The actions, in documentation order.
const (
	ActionSlow         Action = "slow"
	ActionRestore      Action = "restore"
	ActionKill         Action = "kill"
	ActionRestart      Action = "restart"
	ActionGC           Action = "gc"
	ActionFail         Action = "fail"
	ActionRecover      Action = "recover"
	ActionErrors       Action = "errors"
	ActionRate         Action = "rate"
	ActionAlgorithm    Action = "algorithm"
	ActionAddServer    Action = "add-server"
	ActionRemoveServer Action = "remove-server"
	ActionSet          Action = "set"
)

// Actions are the event actions a script may use.
var Actions = []Action{
	ActionSlow, ActionRestore, ActionKill, ActionRestart, ActionGC, ActionFail, ActionRecover, ActionErrors,
	ActionRate, ActionAlgorithm, ActionAddServer, ActionRemoveServer, ActionSet,
}

// ServerAction reports whether a acts on servers named by the event's target.
func (a Action) ServerAction() bool {
	switch a {
	case ActionSlow, ActionRestore, ActionKill, ActionRestart, ActionGC, ActionFail, ActionRecover, ActionErrors:
		return true
	}
	return false
}

// ActionNames lists the actions as text (for messages).
func ActionNames() []string { return names(Actions) }

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// String is the event as a drill line, as `lab chaos` takes it and the
// event logs show it: "slow s2 speed=0.25", "set clients.budget=0.1",
// "kill s3 for=30s".
func (e Event) String() string {
	parts := []string{string(e.Action)}
	if e.Target != "" {
		parts = append(parts, e.Target)
	}
	switch e.Action {
	case ActionSlow:
		parts = append(parts, "speed="+strconv.FormatFloat(e.Speed, 'g', -1, 64))
	case ActionGC:
		parts = append(parts, "pause="+e.Pause.String())
	case ActionErrors:
		parts = append(parts, "share="+strconv.FormatFloat(e.Share, 'g', -1, 64))
	case ActionRate:
		parts = append(parts, "rate="+strconv.FormatFloat(e.Rate, 'g', -1, 64))
	case ActionAlgorithm:
		parts = append(parts, "algorithm="+e.Algorithm)
	case ActionSet:
		for _, k := range slices.Sorted(maps.Keys(e.Set)) {
			parts = append(parts, k+"="+e.Set[k])
		}
	}
	if e.For > 0 {
		parts = append(parts, "for="+e.For.String())
	}
	return strings.Join(parts, " ")
}
