package cli

import (
	"fmt"

	"rsx/crawl"
)

// treeFailed ends rsx tree when URL itself could not be read (exit status
// 2). With --json, standard output still gets its one JSON document: the
// root node, its error said, as for any document of the tree that could not
// be read.
func (a *app) treeFailed(f treeFlags, target string, root *crawl.Node, err error) error {
	err = fmt.Errorf("tree: %w", err)
	if f.json {
		j := &jsonTreeNode{URL: target, Children: []*jsonTreeNode{}}
		if root != nil {
			j = treeJSON(root)
		}
		msg := err.Error()
		j.Error = &msg
		if werr := writeJSON(a.out, j); werr != nil {
			return failed(fmt.Errorf("%w (and writing the JSON: %v)", err, werr))
		}
	}
	return failed(err)
}
