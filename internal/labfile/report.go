package labfile

// ReportSpec says how the report presents a lab's result.
type ReportSpec struct {
	// Headline is the figure the lab is about: the report ranks the
	// settings by it and shows it first. Default p99.
	Headline Headline `yaml:"headline"`
}

// Headline names a report's headline figure.
type Headline string

// The headline figures (docs/labfile.md, "report").
const (
	HeadlineP99      Headline = "p99"       // the 99th percentile latency of successful requests, lowest first
	HeadlineGoodput  Headline = "goodput"   // the share of requests that succeeded, highest first
	HeadlineMaxQueue Headline = "max_queue" // the fullest server's longest queue, lowest first
)

// Headlines lists the headline figures in documentation order.
var Headlines = []Headline{HeadlineP99, HeadlineGoodput, HeadlineMaxQueue}
