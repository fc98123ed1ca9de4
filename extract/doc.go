// Package extract owns the D → I step: it reads unexamined events, asks an
// extractor (a model through extract/model's router, or the embedded
// heuristic) for durable, self-contained facts that cite those events,
// drops facts that cite events outside the batch or go over the answer
// bounds, and writes the rest as pending session facts together with the
// advanced per-conversation watermark. What forget and capture read or
// delete of the extracted facts (Wordings, CitedAmong, Digests,
// ForgetFacts, Pending) is here too, beside the stage that writes them.
//
// It does not call model hosts itself (extract/model does) and does not
// decide what is already known; that is integrate's job.
package extract
